//===- Coalescing.cpp - Is an access coalesced on a target? ---------------===//
#include "Analysis/Coalescing.h"

#include <set>

namespace gpumerge {

AffineForm strideInX(const AffineForm &Index) {
  return Index.coefficientOf({AffineVar::Kind::Thread, "idx"}) +
         Index.coefficientOf({AffineVar::Kind::Thread, "tidx"});
}

unsigned countUncoalesced(const Function &F, const MachineDescription &MD,
                          AccessKinds Which) {
  unsigned N = 0;
  for (const Access &A : collectAccesses(F))
    if (Which == AccessKinds::All ||
        A.IsWrite == (Which == AccessKinds::Writes))
      N += checkCoalescing(A, MD).Coalesced == Tristate::False;
  return N;
}

const char *tristateName(Tristate T) {
  switch (T) {
  case Tristate::False:
    return "false";
  case Tristate::True:
    return "true";
  case Tristate::Unknown:
    return "unknown";
  }
  return "?";
}

/// Base offsets (in elements) the group of threads starts at: the constant
/// term, moved by each loop iterator over its first 16 iterations (§3.2: the
/// pattern repeats after that) and by each other thread position with a
/// constant coefficient. Symbolic coefficients, and loops whose step is not
/// a constant (`j += nt`), are assumed to move by whole segments.
static std::vector<std::int64_t> baseOffsets(const Access &A,
                                             const AffineForm &Rest) {
  std::int64_t C0 = Rest.constantTerm();
  std::vector<std::int64_t> Bases = {C0};
  for (const AffineVar &V : Rest.variables(AffineVar::Kind::Loop)) {
    auto Coeff = Rest.coefficientOf(V).asConstant();
    if (!Coeff)
      continue;
    std::int64_t Start = 0, Step = 1;
    bool ConstantStep = true;
    for (const LoopInfo &L : A.Loops)
      if (L.Iter == V.Name) {
        Start = L.ThreadStart ? 0 : L.Start.value_or(0);
        Step = L.Step;
        ConstantStep = L.ConstantStep;
      }
    if (!ConstantStep) {
      Bases.push_back(C0 + *Coeff * Start);
      continue;
    }
    for (std::int64_t K = 0; K < 16; ++K)
      Bases.push_back(C0 + *Coeff * (Start + K * Step));
  }
  for (const AffineVar &V : Rest.variables(AffineVar::Kind::Thread)) {
    auto Coeff = Rest.coefficientOf(V).asConstant();
    if (!Coeff)
      continue;
    for (std::int64_t K = 0; K < 16; ++K)
      Bases.push_back(C0 + *Coeff * K);
  }
  return Bases;
}

/// Distinct \p Unit-byte blocks touched by \p G threads at element offsets
/// Base + t*Stride.
static unsigned blocksTouched(std::int64_t Base, std::int64_t Stride,
                              unsigned G, unsigned Bytes, unsigned Unit) {
  std::set<std::int64_t> Blocks;
  // Offsets relative to an aligned origin far below: floor division works
  // for negative constants too.
  const std::int64_t Origin = std::int64_t(1) << 40;
  for (unsigned T = 0; T < G; ++T) {
    std::int64_t Addr = (Base + std::int64_t(T) * Stride) * Bytes + Origin;
    Blocks.insert(Addr / Unit);
  }
  return Blocks.size();
}

CoalescingResult checkCoalescing(const Access &A,
                                 const MachineDescription &MD) {
  CoalescingResult R;
  if (!A.Index) {
    R.Reason = "index is not affine in thread positions and loop iterators";
    return R;
  }
  const AffineForm &F = *A.Index;
  AffineVar Idx{AffineVar::Kind::Thread, "idx"};
  AffineVar Tidx{AffineVar::Kind::Thread, "tidx"};
  AffineForm Stride = strideInX(F);
  if (!Stride.isConstant()) {
    R.Coalesced = Tristate::False;
    R.Reason =
        "neighbouring threads in X are " + Stride.str() + " elements apart";
    return R;
  }
  std::int64_t S = Stride.constantTerm();
  AffineForm Rest = F.without(Idx).without(Tidx);
  bool HalfWarp = MD.CoalescedThread < MD.ThreadInWarp;
  unsigned G = HalfWarp ? MD.CoalescedThread : MD.ThreadInWarp;
  unsigned Unit = HalfWarp ? MD.SegmentBytes : MD.SectorBytes;
  unsigned E = A.ElementBytes;
  // The fewest transactions the group's bytes could take (one for a
  // broadcast).
  unsigned Min =
      S == 0 ? 1 : (G * E * unsigned(S < 0 ? -S : S) + Unit - 1) / Unit;
  R.MinTransactions = Min;
  bool AllAligned = true; // §3.2's half-warp rule: base on a segment boundary
  for (std::int64_t B : baseOffsets(A, Rest)) {
    unsigned T = blocksTouched(B, S, G, E, Unit);
    R.Transactions = std::max(R.Transactions, T);
    AllAligned &= (B * std::int64_t(E)) % std::int64_t(Unit) == 0;
  }

  if (HalfWarp) {
    // §3.2: base aligned to the segment, threads at consecutive words.
    if (S == 0) {
      R.Coalesced = Tristate::False;
      R.Reason = "all threads of a half-warp access the same element";
    } else if (S != 1) {
      R.Coalesced = Tristate::False;
      R.Reason = "neighbouring threads in X are " + std::to_string(S) +
                 " elements apart";
    } else if (R.Transactions > Min || !AllAligned) {
      R.Coalesced = Tristate::False;
      R.Reason = "the half-warp's first address is not segment-aligned in "
                 "every iteration";
    } else {
      R.Coalesced = Tristate::True;
    }
    return R;
  }
  if (S != 0 && S != 1 && S != -1) {
    R.Coalesced = Tristate::False;
    R.Reason = "neighbouring threads in X are " + std::to_string(S) +
               " elements apart";
  } else if (R.Transactions > Min) {
    R.Coalesced = Tristate::False;
    R.Reason = "a warp touches " + std::to_string(R.Transactions) +
               " sectors where " + std::to_string(Min) + " would do";
  } else {
    R.Coalesced = Tristate::True;
  }
  return R;
}

} // namespace gpumerge

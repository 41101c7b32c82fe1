//===- Verify.cpp - Run naive and emitted kernels, compare ----------------===//
#include "Runtime/Verify.h"
#include "Analysis/Accesses.h"
#include "Analysis/BlockBounds.h"
#include "Analysis/Races.h"
#include "Analysis/Uninitialized.h"
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "IR/Evaluate.h"
#include "Runtime/DeviceRun.h"
#include "Runtime/ExtentProbe.h"
#include "Runtime/Isolate.h"
#include "Runtime/VerifyBatch.h"
#include "Runtime/VerifyInputs.h"
#include "Runtime/VerifyPrograms.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

namespace gpumerge {

const char *verifyStatusName(VerifyResult::Status S) {
  switch (S) {
  case VerifyResult::Status::Ok:
    return "ok";
  case VerifyResult::Status::Mismatch:
    return "mismatch";
  case VerifyResult::Status::Skipped:
    return "skipped";
  }
  return "?";
}

namespace {

/// The largest divisor of \p N that is at most \p Limit.
std::int64_t largestDivisorUpTo(std::int64_t N, std::int64_t Limit) {
  for (std::int64_t D = std::min(N, Limit); D > 1; --D)
    if (N % D == 0)
      return D;
  return 1;
}

/// The NDRange of a kernel of shape \p S over \p Domain naive threads. In
/// a dimension no guard bounds (\p Exact), every launched thread runs the
/// kernel, so the launch is exactly the domain (the block a divisor of it)
/// rather than rounded up to whole blocks past the buffers.
NDRange rangeFor(const std::array<std::int64_t, 2> &Domain, unsigned Dims,
                 const LaunchShape &S, std::array<bool, 2> Exact = {}) {
  NDRange R;
  R.Dims = Dims;
  for (unsigned D = 0; D < Dims; ++D) {
    std::int64_t Threads = (Domain[D] + S.Coverage[D] - 1) / S.Coverage[D];
    std::int64_t Block = S.Block[D];
    if (Exact[D] && Threads % Block != 0)
      Block = largestDivisorUpTo(Threads, Block);
    std::int64_t Blocks = (Threads + Block - 1) / Block;
    R.Global[D] = size_t(Blocks * Block);
    R.Local[D] = size_t(Block);
  }
  return R;
}

} // namespace

llvm::Expected<VerifyDevice> verifyDevice(DeviceKind Kind, unsigned Index) {
  std::string Output;
  llvm::Error Failed = runIsolated(
      [&](SendFn Send) {
        auto Session = openSession(Kind, Index);
        if (!Session) {
          Send("error " + llvm::toString(Session.takeError()) + "\n");
          return;
        }
        Send("name " + (*Session)->deviceName() + "\n");
        Send("driver " + (*Session)->driverVersion() + "\n");
      },
      verifyTimeoutSeconds(), Output);
  VerifyDevice D;
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  llvm::StringRef(Output).split(Lines, '\n', -1, false);
  for (llvm::StringRef Line : Lines) {
    if (Line.consume_front("error ")) {
      llvm::consumeError(std::move(Failed));
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Line.str());
    }
    if (Line.consume_front("name "))
      D.Name = Line.str();
    else if (Line.consume_front("driver "))
      D.Driver = Line.str();
  }
  if (Failed)
    return Failed;
  if (D.Name.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the device did not say its name");
  return D;
}

llvm::Expected<VerifyResult>
verifyKernel(const Module &M, const Function &Naive, const Function &Emitted,
             const LaunchShape &Shape, const VerifyOptions &Opts) {
  return verifyStages(M, {&Naive}, {{&Naive, &Emitted, Shape}}, Opts);
}

/// 1e-4 for float, 1e-9 for double (0 for integers); a reassociated sum of
/// N terms widens it to 4Nu (u the unit roundoff), as the rounding errors
/// of both orders grow with N (the bound of recursive summation is (N-1)u
/// times the sum of the terms' magnitudes). The 16-bit floats: 16u. No
/// pass reorders their arithmetic, and OpenCL rounds both sides alike (a
/// mismatch is exact there); nvcc may fuse a product and a sum into one
/// rounding in one kernel and not the other.
double verifyTolerance(const Type &T, std::int64_t Terms) {
  if (T.Scalar == ScalarKind::Half)
    return std::ldexp(1.0, -7);
  if (T.Scalar == ScalarKind::BFloat16)
    return std::ldexp(1.0, -4);
  if (T.Scalar == ScalarKind::Double)
    return std::max(1e-9, double(Terms) * std::ldexp(1.0, -51));
  if (T.Scalar == ScalarKind::Float)
    return std::max(1e-4, double(Terms) * std::ldexp(1.0, -22));
  return 0;
}

/// Measures the extents of \p Unbounded (ExtentProbe.h) on \p Run's inputs,
/// raising them (and making the inputs again with \p MakeInputs) where the
/// probe saw an index past them; false with \p Why where the run cannot
/// stay inside its buffers.
static bool probeExtents(const Module &M,
                         const std::vector<VerifyStage> &Stages,
                         const std::set<std::string> &Unbounded, DeviceRun &Run,
                         std::map<std::string, std::int64_t> &Extents,
                         llvm::function_ref<void()> MakeInputs,
                         std::string &Why) {
  const std::vector<std::string> Arrays(Unbounded.begin(), Unbounded.end());
  const std::int64_t Most = std::int64_t(1) << 26;
  for (unsigned Try = 0; Try < 3; ++Try) {
    std::vector<std::unique_ptr<Function>> Probed;
    std::map<std::string, const Function *> Replacements;
    std::vector<const Function *> Roots;
    for (const VerifyStage &St : Stages) {
      Probed.push_back(probedKernel(*St.Naive, Arrays, Extents));
      Replacements[St.Naive->Name] = Probed.back().get();
      Roots.push_back(St.Naive);
    }
    const std::set<std::string> Reached = M.callClosure(Roots);
    std::string Text;
    if (M.Lang == Language::Cuda)
      Text =
          emitTranslatedPart(M, Language::OpenCL, Reached, Replacements).Text;
    else if (auto E = emitModule(M, Language::OpenCL, Replacements))
      Text = std::move(E->Text);
    else {
      Why = llvm::toString(E.takeError());
      return false;
    }
    std::vector<std::string> Kernels;
    for (const Launch &L : Run.Launches) {
      Kernels.push_back(translatedKernelName(M, L.Naive));
      renameKernel(Text, L.Naive, Kernels.back());
    }
    auto Ranges = runExtentProbe(Run, Text, Kernels, Arrays.size());
    if (!Ranges) {
      std::string Failed = llvm::toString(Ranges.takeError());
      Why = "cannot bound the size of array '" + Arrays.front() +
            "' from its indices, and measuring it failed: ";
      if (std::string Call = untranslatedCall(M, Reached, Failed);
          !Call.empty())
        Why += "the input calls '" + Call +
               "', which gpumerge cannot write in OpenCL (the probe runs "
               "there): ";
      Why += Failed;
      return false;
    }
    bool Raised = false;
    for (size_t I = 0; I < Arrays.size(); ++I) {
      const ProbedRange &R = (*Ranges)[I];
      if (R.Lo >= R.Hi) // never reached at these sizes
        continue;
      if (R.Lo < 0) {
        Why = llvm::formatv("the input kernel indexes array '{0}' at {1}, "
                            "before its start, on verify's inputs at these "
                            "sizes (measured by a probe run: its indices "
                            "give no bound)",
                            Arrays[I], R.Lo);
        return false;
      }
      if (R.Hi > Most) {
        Why = llvm::formatv("array '{0}' would need {1} elements or more at "
                            "these sizes (measured by a probe run: its "
                            "indices give no bound; smaller sizes with "
                            "--size)",
                            Arrays[I], R.Hi);
        return false;
      }
      if (R.Hi <= Extents[Arrays[I]])
        continue;
      Extents[Arrays[I]] = std::int64_t(llvm::PowerOf2Ceil(R.Hi));
      Raised = true;
    }
    if (!Raised)
      return true;
    // The clamped accesses may have steered the rest: measure again.
    Run.Extents = Extents;
    MakeInputs();
  }
  Why = "cannot bound the size of array '" + Arrays.front() +
        "': its indices grew with each measurement";
  return false;
}

/// Why the input kernels of \p Stages have no result to compare with (a
/// global barrier not split, a local read before anything set it, threads
/// that leave before a barrier), or "".
static std::string undefinedInput(const std::vector<VerifyStage> &Stages) {
  for (const VerifyStage &St : Stages) {
    if (hasGlobalSync(*St.Naive))
      return "the kernel has a global barrier that was not split";
    // The reference run itself would not be reproducible.
    if (std::string Why = findUninitializedRead(*St.Naive); !Why.empty())
      return "the input kernel '" + St.Naive->Name +
             "' may read a local that nothing set (" + Why +
             "), so its result is not defined";
    if (std::string Why = findReturnBeforeBarrier(*St.Naive); !Why.empty())
      return "threads of the input kernel '" + St.Naive->Name +
             "' may leave before a barrier the others wait at (" + Why +
             "), which OpenCL leaves undefined: PoCL's runs of it differ";
  }
  return "";
}

namespace {

/// The naive launch at the verify sizes, as the launchers make it.
struct NaiveLaunch {
  /// Its threads: the domain, --grid where given, a third of the domain in
  /// X for a grid-stride loop.
  std::array<std::int64_t, 2> Threads = {1, 1};
  /// The dimensions a guard bounds, and those where the launch is exactly
  /// the domain (rangeFor).
  std::array<bool, 2> Guarded = {false, false}, Exact = {false, false};
  bool Strides = false; ///< an input kernel has a grid-stride loop
  unsigned Dims = 1;
  /// A 3-D grid (idz): what its z guard lets run, for every launch.
  bool Layered = false;
  std::int64_t Layers = 1;
  LaunchShape Shape;
  NDRange Range;
  /// The threads whose accesses the buffers cover, guarded or not.
  std::array<std::int64_t, 2> Covered = {1, 1};

  /// \p R over the layers, where the grid has them (the optimized kernels
  /// run blocks one layer deep).
  void layer(NDRange &R) const {
    if (!Layered)
      return;
    bool Local = R.Local[0] != 0;
    for (unsigned D = R.Dims; D < 2; ++D) {
      R.Global[D] = 1;
      R.Local[D] = Local ? 1 : 0;
    }
    R.Dims = 3;
    R.Global[2] = size_t(Layers);
    R.Local[2] = Local ? 1 : 0;
  }
};

} // namespace

/// Sets \p Result's Sizes (chosen, repaired and widened where --size leaves
/// them open) and Domain (the one the launchers compute: guards first,
/// --grid where none), and the naive launch there; nullopt where no run
/// can be made at these sizes (\p Result's Detail says why).
static llvm::Expected<std::optional<NaiveLaunch>>
naiveLaunchAt(const std::vector<const Function *> &DomainFrom,
              const std::vector<VerifyStage> &Stages, const VerifyOptions &Opts,
              VerifyResult &Result) {
  const Function &Naive = *Stages.front().Naive;
  Result.Sizes = repairSizes(DomainFrom, Stages, chooseSizes(Naive, Opts.Sizes),
                             Opts.Sizes, Opts.Grid);
  Result.Sizes =
      widenDomain(DomainFrom, Stages, Result.Sizes, Opts.Sizes, Opts.Grid);
  bool Race;
  std::string Problem =
      sizeProblem(DomainFrom, Stages, Result.Sizes, Opts.Grid, &Race);
  if (Race) {
    Result.Detail = Problem + "; give sizes where it does not (--size)";
    return std::nullopt;
  }
  unsigned KDims = 1;
  for (const Function *F : DomainFrom)
    KDims = std::max(KDims, findDomain(*F).Dims);
  NaiveLaunch N;
  auto D = sequenceDomain(DomainFrom, Result.Sizes, Opts.Grid, &N.Guarded);
  if (!D)
    return D.takeError();
  Result.Domain = *D;
  N.Threads = Result.Domain;
  if (Opts.Grid)
    for (unsigned Dim = 0; Dim < 2; ++Dim)
      N.Threads[Dim] = (*Opts.Grid)[Dim];
  // An input kernel with a grid-stride loop (GridStride.h) runs on a third
  // of its domain's threads, each taking about three elements, as a grid
  // sized for the device would have it; the optimized kernel on its own.
  N.Strides = llvm::any_of(
      DomainFrom, [](const Function *F) { return F->GridStrideLine != 0; });
  if (N.Strides && !Opts.Grid)
    N.Threads[0] = std::max<std::int64_t>(1, (Result.Domain[0] + 2) / 3);
  for (const Function *F : DomainFrom) {
    KernelDomain KD = findDomain(*F);
    if (!KD.Layered)
      continue;
    N.Layered = true;
    auto Z = evaluateLayers(*F, KD, Result.Sizes);
    if (!Z) {
      Result.Detail = llvm::toString(Z.takeError());
      return std::nullopt;
    }
    N.Layers = std::max(N.Layers, *Z);
  }
  N.Dims = Result.Domain[1] > 1 || N.Threads[1] > 1 || KDims == 2 ? 2 : 1;
  // (A grid-stride loop's third exactly: a block rounded up could cover
  // the domain, each thread taking one element.)
  N.Exact = {!N.Guarded[0] || N.Strides, !N.Guarded[1]};
  std::array<std::int64_t, 2> Fixed = {0, 0}, AtMost = {0, 0};
  for (const Function *F : DomainFrom) {
    std::array<std::int64_t, 2> Bound = sharedArrayBlockBound(*F);
    for (unsigned D = 0; D < 2; ++D) {
      Fixed[D] = std::max(Fixed[D], F->FixedBlock[D]);
      if (Bound[D])
        AtMost[D] = AtMost[D] ? std::min(AtMost[D], Bound[D]) : Bound[D];
    }
  }
  N.Shape = naiveLaunch(N.Dims, Fixed, AtMost);
  N.Range = rangeFor(N.Threads, N.Dims, N.Shape, N.Exact);
  N.layer(N.Range);
  // Buffers cover every launched thread's accesses, guarded or not: a read
  // before the guard, or past it, must stay inside them.
  N.Covered = {std::int64_t(N.Range.Global[0]),
               std::int64_t(N.Range.Global[1])};
  if (N.Strides) // its loop reaches the whole domain
    for (unsigned Dim = 0; Dim < 2; ++Dim)
      N.Covered[Dim] = std::max(N.Covered[Dim], Result.Domain[Dim]);
  return N;
}

namespace {

/// The buffers' sizes: each array as large as the accesses of every kernel
/// that runs reach (bufferExtents); the arrays no index range bounds,
/// which an extent probe measures (OpenCL), gathered in Unbounded.
struct BufferSizes {
  std::map<std::string, std::int64_t> Extents;
  std::set<std::string> Unbounded;

  /// Widens them to the accesses of \p F run by \p Threads in blocks of
  /// \p S at \p Sizes over \p Layers layers.
  llvm::Error widen(const Function &F, const SizeBindings &Sizes,
                    std::array<std::int64_t, 2> Threads, const LaunchShape &S,
                    std::int64_t Layers) {
    std::set<std::string> Here;
    auto E = bufferExtents(F, Sizes, Threads, S.Block, nullptr, Layers, &Here);
    if (!E)
      return E.takeError();
    if (!Here.empty()) {
      std::string Why = unprobeable(F, Here);
      if (!Why.empty()) { // the analysis's own error, and why no probe
        auto Unprobed =
            bufferExtents(F, Sizes, Threads, S.Block, nullptr, Layers);
        if (!Unprobed)
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         llvm::toString(Unprobed.takeError()) +
                                             " (" + Why + ")");
      }
      Unbounded.insert(Here.begin(), Here.end());
    }
    for (auto &[Name, N] : *E)
      Extents[Name] = std::max(Extents[Name], N);
    return llvm::Error::success();
  }
};

} // namespace

/// \p L's candidate launch where \p P's optimized path runs over
/// \p StageDomain: its blocks, split-reduction's lanes, and the edges as
/// the launchers run them.
static void optimizedLaunch(Launch &L, const LaunchPlan &P,
                            const std::array<std::int64_t, 2> &StageDomain,
                            const NaiveLaunch &N) {
  if (P.SameLaunch) {
    L.CandidateRange = L.NaiveRange;
    return;
  }
  LaunchShape S;
  S.Block = P.Block;
  S.Coverage = P.Coverage;
  std::array<std::int64_t, 2> Domain = StageDomain;
  if (P.Interchanged)
    std::swap(Domain[0], Domain[1]);
  if (P.hasEdges()) {
    // Whole tiles only; the edges as the launchers run them.
    for (unsigned D = 0; D < P.Dims; ++D)
      Domain[D] = Domain[D] / P.tile(D) * P.tile(D);
    LaunchShape EdgeShape;
    EdgeShape.Block = edgeBlock(P.Dims);
    for (const EdgeRange &R : edgeRanges(P, StageDomain)) {
      Launch::Edge E;
      std::array<std::int64_t, 2> Size;
      for (unsigned D = 0; D < 2; ++D)
        Size[D] = R.End[D] - R.Begin[D];
      E.Range = rangeFor(Size, P.Dims, EdgeShape);
      N.layer(E.Range);
      for (unsigned D = 0; D < P.Dims; ++D) {
        E.Bounds.push_back(R.Begin[D]);
        E.Bounds.push_back(R.End[D]);
      }
      L.Edges.push_back(std::move(E));
    }
  }
  L.CandidateRange = rangeFor(Domain, N.Dims, S);
  // split-reduction: Lanes threads in X per naive thread.
  L.CandidateRange.Global[0] *= size_t(P.Lanes);
  L.CandidateRange.Local[0] *= size_t(P.Lanes);
  N.layer(L.CandidateRange);
}

/// Sets \p L's images: the arrays the optimized kernel \p E (planned by
/// \p P) reads as texels. OpenCL images of the float/int ones; CUDA texture
/// objects of all of them in the object form (the __ldg form reads the
/// buffers).
static void setTexelArrays(Launch &L, const Function &E, const LaunchPlan &P,
                           const VerifyOptions &Opts) {
  bool Texels =
      Opts.Device == DeviceKind::OpenCL || P.Texture == TextureForm::Object;
  if (L.Candidate != E.Name || !Texels)
    return;
  for (const std::string &A : P.TextureArrays) {
    const Param *Par = E.findParam(A);
    Type T = Par ? Par->Ty.element() : Type();
    if (!Par || !P.readsAsImage(A, T))
      continue;
    L.Images[A] = T.Scalar == ScalarKind::Float ? TexelChannel::Float
                  : T.Scalar == ScalarKind::Int ? TexelChannel::Int
                                                : TexelChannel::UInt;
    L.Channels[A] = P.TextureVectorWidth.count(A) ? 4 : 1;
  }
}

/// The launch of stage \p St (of \p StageCount) on the path its launcher
/// would take at \p Result's sizes: the optimized kernel where its plan's
/// conditions hold, else the fallback (\p AnyFallback set, \p Result's
/// FailedPrecondition the first stage's why); \p Result's ReassociatedTerms
/// widened by an optimized sum in another order.
static Launch stageLaunch(const VerifyStage &St, size_t StageCount,
                          const NaiveLaunch &N, const VerifyOptions &Opts,
                          VerifyResult &Result, bool &AnyFallback) {
  Launch L;
  L.Naive = St.Naive->Name;
  L.NaiveRange = N.Range;
  L.Candidate = St.Emitted->Name;
  L.Fallback = Opts.Device == DeviceKind::Cuda ? fallbackCall(*St.Naive)
                                               : fallbackName(St.Naive->Name);
  L.CandidateRange = rangeFor(N.Threads, N.Dims, St.Shape, N.Exact);
  N.layer(L.CandidateRange);
  if (!St.Emitted->Plan)
    return L;
  const LaunchPlan &P = *St.Emitted->Plan;
  // The launchers take the domain from the kernel's own guard: a later
  // phase of a split kernel may guard fewer threads than the first.
  std::array<std::int64_t, 2> StageDomain = Result.Domain;
  if (!P.SameLaunch)
    for (unsigned D = 0; D < P.Dims; ++D)
      if (P.Extent[D])
        if (auto V = evaluateInteger(*P.Extent[D], Result.Sizes))
          StageDomain[P.naiveDim(D)] = *V;
  std::string Failed;
  bool Applies = planApplies(P, StageDomain, Result.Sizes, Failed);
  // The launchers also check that the naive launch covered the domain
  // (which a grid-stride loop covers with any).
  for (unsigned Dim = 0; Applies && !N.Strides && Dim < N.Dims; ++Dim)
    if (N.Guarded[Dim] && N.Threads[Dim] < StageDomain[Dim]) {
      Applies = false;
      Failed =
          llvm::formatv("the launch ({0} threads in {1}) does not "
                        "cover the guard's domain ({2})",
                        N.Threads[Dim], Dim == 0 ? "X" : "Y", StageDomain[Dim]);
    }
  // The optimized kernel's sums in another order: a wider tolerance.
  if (Applies && P.ReassociatedTerms)
    if (auto Terms = evaluateInteger(*P.ReassociatedTerms, Result.Sizes))
      Result.ReassociatedTerms = std::max(Result.ReassociatedTerms, *Terms);
  if (!Applies) {
    if (!AnyFallback)
      Result.FailedPrecondition =
          StageCount > 1 ? St.Naive->Name + ": " + Failed : Failed;
    AnyFallback = true;
    L.Candidate = L.Fallback;
    L.CandidateRange = L.NaiveRange;
  } else {
    optimizedLaunch(L, P, StageDomain, N);
  }
  setTexelArrays(L, *St.Emitted, P, Opts);
  return L;
}

/// \p Result's record of \p Launches: each naive launch and what runs in
/// its place.
static void recordLaunches(VerifyResult &Result,
                           const std::vector<Launch> &Launches) {
  for (const Launch &L : Launches) {
    VerifyResult::LaunchRecord R{
        L.Naive, L.NaiveRange.Global, L.NaiveRange.Local, {}};
    R.Ran.push_back(
        {L.Candidate, L.CandidateRange.Global, L.CandidateRange.Local});
    for (const Launch::Edge &E : L.Edges)
      R.Ran.push_back({edgeName(L.Naive), E.Range.Global, E.Range.Local});
    Result.Launches.push_back(std::move(R));
  }
}

/// Sets \p Run's parameters: \p Naive's, then the CUDA __constant__ arrays
/// the host fills (arguments after the kernel's own in the OpenCL
/// translation, random like every input), sized in \p Extents. False where
/// a --reference kernel cannot take them (\p Result's Detail says so).
static bool setParams(const Function &Naive, const VerifyOptions &Opts,
                      DeviceRun &Run,
                      std::map<std::string, std::int64_t> &Extents,
                      VerifyResult &Result) {
  Run.Params = Naive.Params;
  if (!Naive.ConstantArrays.empty() && !Opts.ReferenceSource.empty()) {
    Result.Detail = "the kernel reads __constant__ arrays, which a "
                    "--reference kernel cannot take as the translation does";
    return false;
  }
  for (const Param &C : Naive.ConstantArrays) {
    std::int64_t N = C.DeclaredRows;
    for (std::int64_t X : C.Ty.InnerExtents)
      N *= X;
    Extents[C.Name] = N;
    Run.Params.push_back(C);
    ++Run.ConstantArrays;
  }
  return true;
}

/// Sets \p Run's scalars and inputs: \p Like's where it has the same
/// parameters and extents (--tune's candidates share them), else made from
/// the seed, the arrays in \p Buffers.Unbounded measured by the extent
/// probe and the inputs made again at its sizes. \p Out's InputSeconds
/// gets the time taken; false where the probe finds no sizes (\p Out's
/// Result says why).
static bool setInputs(const Module &M, const std::vector<VerifyStage> &Stages,
                      const VerifyOptions &Opts, const DeviceRun *Like,
                      BufferSizes &Buffers, DeviceRun &Run, PreparedRun &Out) {
  std::map<std::string, std::int64_t> &Extents = Buffers.Extents;
  auto MakingInputs = std::chrono::steady_clock::now();
  Run.Scalars = verifyScalars(Run.Params, Out.Result.Sizes);
  bool SameInputs = Like && Like->Inputs && Like->Extents == Run.Extents &&
                    Like->Params.size() == Run.Params.size();
  for (size_t I = 0; SameInputs && I < Run.Params.size(); ++I)
    SameInputs = Like->Params[I].Name == Run.Params[I].Name &&
                 Like->Params[I].Ty == Run.Params[I].Ty;
  InputKinds Kinds;
  for (const VerifyStage &St : Stages) {
    std::set<std::string> Of = arraysSteeringIndices(*St.Naive);
    Kinds.Indices.insert(Of.begin(), Of.end());
    std::set<std::string> Writes = arraysSteeringWrites(*St.Naive);
    Kinds.Scatters.insert(Writes.begin(), Writes.end());
  }
  auto MakeInputs = [&] {
    // (An array with no extent is empty, and has one from now on.)
    for (const Param &P : Run.Params)
      if (P.Ty.IsPointer)
        Extents[P.Name];
    Run.Inputs = makeVerifyInputs(Run.Params, Extents, Kinds, Opts.Seed);
  };
  if (SameInputs)
    Run.Inputs = Like->Inputs;
  else
    MakeInputs();
  Out.InputSeconds = SameInputs
                         ? 0
                         : std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - MakingInputs)
                               .count();
  if (!Buffers.Unbounded.empty() && !SameInputs)
    return probeExtents(M, Stages, Buffers.Unbounded, Run, Extents, MakeInputs,
                        Out.Result.Detail);
  return true;
}

/// Decides a run of verifyStages on the device \p Opts names: the sizes,
/// the launches, the programs and the inputs, which are \p Like's where it
/// has the same parameters and extents (--tune's candidates share them).
static llvm::Expected<PreparedRun>
prepareRun(const Module &M, const std::vector<const Function *> &DomainFrom,
           const std::vector<VerifyStage> &Stages, const VerifyOptions &Opts,
           const DeviceRun *Like) {
  PreparedRun Out;
  VerifyResult &Result = Out.Result;
  if (std::string Why = undefinedInput(Stages); !Why.empty()) {
    Result.Detail = Why;
    return Out;
  }
  auto N = naiveLaunchAt(DomainFrom, Stages, Opts, Result);
  if (!N)
    return N.takeError();
  if (!*N)
    return Out;
  BufferSizes Buffers;
  std::vector<Launch> Launches;
  bool AnyPlan = false, AnyFallback = false;
  for (const VerifyStage &St : Stages) {
    if (auto E = Buffers.widen(*St.Naive, Result.Sizes, (*N)->Covered,
                               (*N)->Shape, (*N)->Layers))
      return E;
    // A planned kernel touches the naive kernel's elements by construction
    // (its shared-memory indices are not global extents anyway).
    if (!St.Emitted->Plan)
      if (auto E = Buffers.widen(*St.Emitted, Result.Sizes, (*N)->Covered,
                                 St.Shape, (*N)->Layers))
        return E;
    AnyPlan |= bool(St.Emitted->Plan);
    Launches.push_back(
        stageLaunch(St, Stages.size(), **N, Opts, Result, AnyFallback));
  }
  if (AnyPlan)
    Result.Path = AnyFallback ? "fallback" : "optimized";
  recordLaunches(Result, Launches);
  // A version timed for --tune that would fall back here is no candidate at
  // these sizes: nothing to build or run.
  if (Opts.TimedRuns && AnyFallback) {
    Result.Detail = "the launcher runs the fallback at these sizes";
    return Out;
  }

  DeviceRun Run;
  Run.Device = Opts.Device;
  Run.DeviceIndex = Opts.DeviceIndex;
  if (Opts.Device == DeviceKind::Cuda) {
    if (auto E = setCudaPrograms(M, Stages, Launches, Opts, Run, Result))
      return E;
  } else if (!setOpenCLPrograms(M, Stages, Launches, Opts, Run, Result,
                                Out.Reached)) {
    return Out;
  }
  Run.BuildOptions = Opts.BuildOptions;
  Run.DebugFail = Opts.DebugFailCandidate;
  Run.TimedRuns = Opts.TimedRuns;
  Run.Launches = std::move(Launches);
  if (!setParams(*Stages.front().Naive, Opts, Run, Buffers.Extents, Result))
    return Out;
  // The arrays to measure start at a size the probe may raise.
  for (const std::string &A : Buffers.Unbounded)
    Buffers.Extents[A] = std::max<std::int64_t>(Buffers.Extents[A], 1 << 16);
  Run.Extents = Buffers.Extents;
  if (!setInputs(M, Stages, Opts, Like, Buffers, Run, Out))
    return Out;
  Out.Run = std::move(Run);
  return Out;
}

/// verifyStages on the device \p Opts names; \p InputBuildFailed says
/// whether the error returned is the input's build failing there.
static llvm::Expected<VerifyResult>
verifyOn(const Module &M, const std::vector<const Function *> &DomainFrom,
         const std::vector<VerifyStage> &Stages, const VerifyOptions &Opts,
         bool &InputBuildFailed) {
  InputBuildFailed = false;
  auto P = prepareRun(M, DomainFrom, Stages, Opts, nullptr);
  if (!P)
    return P.takeError();
  if (!P->Run)
    return std::move(P->Result);
  std::optional<llvm::Expected<VerifyResult>> Out;
  runPrepared(M, {&*P}, Opts, InputBuildFailed,
              [&](size_t, llvm::Expected<VerifyResult> R) {
                Out.emplace(std::move(R));
              });
  return std::move(*Out);
}

void verifyCandidates(
    const Module &M, const std::vector<const Function *> &DomainFrom,
    const std::vector<std::vector<VerifyStage>> &Candidates,
    const VerifyOptions &Opts,
    llvm::function_ref<void(size_t, llvm::Expected<VerifyResult>)> Done) {
  // Every run decided (kept: later ones take the inputs of earlier ones).
  std::vector<std::optional<PreparedRun>> Prepared(Candidates.size());
  // The runs waiting for a device run, which share their reference.
  std::vector<size_t> Group;
  auto Flush = [&] {
    if (Group.empty())
      return;
    std::vector<PreparedRun *> Batch;
    for (size_t I : Group)
      Batch.push_back(&*Prepared[I]);
    bool InputBuildFailed;
    runPrepared(M, Batch, Opts, InputBuildFailed,
                [&](size_t I, llvm::Expected<VerifyResult> R) {
                  Done(Group[I], std::move(R));
                });
    Group.clear();
  };
  // --debug-fail=verify-candidate=crash-candidate=K (hang-candidate=K),
  // for tests: the K-th candidate alone crashes (hangs) on the device.
  llvm::StringRef Debug(Opts.DebugFailCandidate);
  std::string OneFails;
  size_t Failing = 0;
  for (const char *Mode : {"crash", "hang"})
    if (Debug.consume_front(std::string(Mode) + "-candidate=") &&
        !Debug.getAsInteger(10, Failing))
      OneFails = Mode;
  const DeviceRun *Like = nullptr;
  for (size_t I = 0; I < Candidates.size(); ++I) {
    auto P = prepareRun(M, DomainFrom, Candidates[I], Opts, Like);
    if (P && P->Run && !OneFails.empty())
      P->Run->DebugFail = I + 1 == Failing ? OneFails : "";
    if (!P || !P->Run) {
      Flush();
      Done(I, P ? llvm::Expected<VerifyResult>(std::move(P->Result))
                : llvm::Expected<VerifyResult>(P.takeError()));
      continue;
    }
    if (!Group.empty() &&
        !sameReference(*Prepared[Group.front()]->Run, *P->Run))
      Flush();
    Prepared[I] = std::move(*P);
    Like = &*Prepared[I]->Run;
    Group.push_back(I);
  }
  Flush();
}

llvm::Expected<VerifyResult>
verifyStages(const Module &M, const std::vector<const Function *> &DomainFrom,
             const std::vector<VerifyStage> &Stages,
             const VerifyOptions &Opts) {
  bool InputBuildFailed;
  auto R = verifyOn(M, DomainFrom, Stages, Opts, InputBuildFailed);
  if (R || !InputBuildFailed || Opts.Device != DeviceKind::Cuda ||
      !Opts.OpenCLWhereCudaCannot || Opts.TimedRuns)
    return R;
  // --device=auto: NVRTC cannot build the input as written (a legacy
  // texture reference, a host header it lacks); OpenCL runs it translated.
  std::string Why = llvm::toString(R.takeError());
  VerifyOptions OnOpenCL = Opts;
  OnOpenCL.Device = DeviceKind::OpenCL;
  auto Again = verifyOn(M, DomainFrom, Stages, OnOpenCL, InputBuildFailed);
  if (Again) {
    llvm::StringRef First = llvm::StringRef(Why).split('\n').first;
    Again->DeviceNote =
        "opencl (--device=auto: the CUDA device cannot build the input: " +
        First.str() + ")";
  }
  return Again;
}

} // namespace gpumerge
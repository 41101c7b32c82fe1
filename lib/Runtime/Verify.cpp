//===- Verify.cpp - Run naive and emitted kernels, compare ----------------===//
#include "Runtime/Verify.h"
#include "Analysis/Accesses.h"
#include "Analysis/BlockBounds.h"
#include "Analysis/Races.h"
#include "Analysis/Uninitialized.h"
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/MathSpellings.h"
#include "CodeGen/RaceCheck.h"
#include "IR/Evaluate.h"
#include "IR/HalfPrecision.h"
#include "Runtime/DeviceRun.h"
#include "Runtime/ExtentProbe.h"
#include "Runtime/Isolate.h"
#include "Runtime/RaceCheckRun.h"
#include "Runtime/VerifyCuda.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <set>
#include <unistd.h>

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

/// splitmix64: a small, well-mixed generator, so runs are repeatable.
struct Random {
  std::uint64_t State;
  std::uint64_t next() {
    std::uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

template <typename T> void put(std::vector<std::uint8_t> &B, size_t I, T V) {
  std::memcpy(B.data() + I * sizeof(T), &V, sizeof(T));
}
unsigned scalarBytes(ScalarKind K) { return Type::scalar(K).elementBytes(); }

/// Pseudo-random contents for an array of \p Count elements of \p T:
/// floats in [-1, 1), integers in [-8, 8] (in [0, 16] where \p FromZero:
/// indices). Each element takes one draw either way.
std::vector<std::uint8_t> randomContents(const Type &T, std::int64_t Count,
                                         Random &R, bool FromZero = false) {
  const int Low = FromZero ? 0 : -8;
  size_t N = size_t(Count) * T.lanes();
  unsigned Bytes = scalarBytes(T.Scalar);
  std::vector<std::uint8_t> B(N * Bytes);
  for (size_t I = 0; I < N; ++I) {
    double U = R.uniform();
    switch (T.Scalar) {
    case ScalarKind::Float:
      put<float>(B, I, float(2 * U - 1));
      break;
    case ScalarKind::Double:
      put<double>(B, I, 2 * U - 1);
      break;
    case ScalarKind::Half:
      put<std::uint16_t>(B, I, halfBits(float(2 * U - 1)));
      break;
    case ScalarKind::BFloat16:
      put<std::uint16_t>(B, I, bfloat16Bits(float(2 * U - 1)));
      break;
    case ScalarKind::Int:
      put<std::int32_t>(B, I, std::int32_t(U * 17) + Low);
      break;
    case ScalarKind::UInt:
      put<std::uint32_t>(B, I, std::uint32_t(U * 17));
      break;
    case ScalarKind::Long:
      put<std::int64_t>(B, I, std::int64_t(U * 17) + Low);
      break;
    case ScalarKind::ULong:
      put<std::uint64_t>(B, I, std::uint64_t(U * 17));
      break;
    default:
      for (unsigned K = 0; K < Bytes; ++K)
        B[I * Bytes + K] = std::uint8_t(U * 7);
    }
  }
  return B;
}

/// 0 .. Count - 1 in a pseudo-random order, as elements of the integer type
/// \p T (an array that steers writes: no two threads then write one
/// element). One draw per element, as randomContents; other element types
/// fall back to it.
std::vector<std::uint8_t> permutedIndices(const Type &T, std::int64_t Count,
                                          Random &R) {
  if (T.lanes() != 1 ||
      !(T.Scalar == ScalarKind::Int || T.Scalar == ScalarKind::UInt ||
        T.Scalar == ScalarKind::Long || T.Scalar == ScalarKind::ULong))
    return randomContents(T, Count, R, /*FromZero=*/true);
  std::vector<std::int64_t> Order(size_t(std::max<std::int64_t>(Count, 0)));
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = std::int64_t(I);
  for (size_t I = Order.size(); I > 1; --I)
    std::swap(Order[I - 1], Order[R.next() % I]);
  if (!Order.empty())
    R.next();
  std::vector<std::uint8_t> B(Order.size() * scalarBytes(T.Scalar));
  for (size_t I = 0; I < Order.size(); ++I)
    if (scalarBytes(T.Scalar) == 4)
      put<std::int32_t>(B, I, std::int32_t(Order[I]));
    else
      put<std::int64_t>(B, I, Order[I]);
  return B;
}

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

/// \p F without the last barrier it has (--debug-fail's drop-barrier).
static std::unique_ptr<Function> withoutLastBarrier(const Function &F) {
  std::unique_ptr<Function> Out = F.clone();
  std::vector<StmtPtr> *Body = nullptr;
  size_t At = 0;
  walkStmts(*Out->Body, [&](Stmt &S) {
    if (auto *B = llvm::dyn_cast<BlockStmt>(&S))
      for (size_t I = 0; I < B->Body.size(); ++I)
        if (llvm::isa<SyncStmt>(*B->Body[I])) {
          Body = &B->Body;
          At = I;
        }
  });
  if (Body)
    Body->erase(Body->begin() + std::ptrdiff_t(At));
  return Out;
}

/// \p F with each __pipeline_wait_prior(N) waiting for one batch fewer
/// (N + 1): the copies of the tile about to be read may still be in flight
/// (--debug-fail=verify-candidate=weaken-wait, for the tests).
static std::unique_ptr<Function> withWeakerWaits(const Function &F) {
  std::unique_ptr<Function> Out = F.clone();
  walkStmts(*Out->Body, [](Stmt &S) {
    if (auto *P = llvm::dyn_cast<PipelineStmt>(&S))
      if (P->Operation == PipelineStmt::Op::WaitPrior)
        ++P->Prior;
  });
  return Out;
}

/// The function that a function of \p M named in \p Reached calls and the
/// OpenCL compiler's \p Log calls undeclared (`__vmaxs4`, a CUDA intrinsic
/// with no OpenCL spelling), or "".
static std::string untranslatedCall(const Module &M,
                                    const std::set<std::string> &Reached,
                                    llvm::StringRef Log) {
  std::set<std::string> Called;
  for (const std::string &Name : Reached)
    for (const Function *F : M.overloads(Name))
      walkExprs(*F->Body, [&](const Expr &E) {
        if (const auto *C = llvm::dyn_cast<CallExpr>(&E))
          Called.insert(C->Callee);
      });
  for (const char *Marker :
       {"undeclared identifier '", "implicit declaration of function '"})
    for (size_t At = Log.find(Marker); At != llvm::StringRef::npos;
         At = Log.find(Marker, At + 1)) {
      llvm::StringRef Name =
          Log.drop_front(At + std::strlen(Marker)).take_until([](char C) {
            return C == '\'';
          });
      if (Called.count(Name.str()) && !M.find(Name.str()))
        return Name.str();
    }
  return "";
}

/// The name kernel \p Kernel of \p M has in its OpenCL translation: a CUDA
/// kernel named like an OpenCL built-in function (`step`, `dot`) runs as
/// gpumerge_NAME.
static std::string translatedKernelName(const Module &M,
                                        const std::string &Kernel) {
  return M.Lang == Language::Cuda && isOpenCLBuiltinFunction(Kernel)
             ? "gpumerge_" + Kernel
             : Kernel;
}

/// Renames the OpenCL kernel \p From in \p Text to \p To.
static void renameKernel(std::string &Text, const std::string &From,
                         const std::string &To) {
  if (From == To)
    return;
  const std::string Old = "__kernel void " + From + "(";
  const std::string New = "__kernel void " + To + "(";
  for (size_t At = Text.find(Old); At != std::string::npos;
       At = Text.find(Old, At + New.size()))
    Text.replace(At, Old.size(), New);
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

namespace {

/// A verify run as decided in this process: the result so far and, where
/// kernels are to run, what runs on the device.
struct PreparedRun {
  VerifyResult Result;
  std::optional<DeviceRun> Run; ///< none: Result is final
  /// The functions an OpenCL run's programs hold (callClosure).
  std::set<std::string> Reached;
  double InputSeconds = 0; ///< making the inputs (0: \p Like's were taken)
};

} // namespace

/// Decides a run of verifyStages on the device \p Opts names: the sizes,
/// the launches, the programs and the inputs, which are \p Like's where it
/// has the same parameters and extents (--tune's candidates share them).
static llvm::Expected<PreparedRun>
prepareRun(const Module &M, const std::vector<const Function *> &DomainFrom,
           const std::vector<VerifyStage> &Stages, const VerifyOptions &Opts,
           const DeviceRun *Like) {
  PreparedRun Out;
  VerifyResult &Result = Out.Result;
  const Function &Naive = *Stages.front().Naive;
  for (const VerifyStage &St : Stages) {
    if (hasGlobalSync(*St.Naive)) {
      Result.Detail = "the kernel has a global barrier that was not split";
      return Out;
    }
    // The reference run itself would not be reproducible.
    if (std::string Why = findUninitializedRead(*St.Naive); !Why.empty()) {
      Result.Detail = "the input kernel '" + St.Naive->Name +
                      "' may read a local that nothing set (" + Why +
                      "), so its result is not defined";
      return Out;
    }
    if (std::string Why = findReturnBeforeBarrier(*St.Naive); !Why.empty()) {
      Result.Detail = "threads of the input kernel '" + St.Naive->Name +
                      "' may leave before a barrier the others wait at (" +
                      Why +
                      "), which OpenCL leaves undefined: PoCL's runs of it "
                      "differ";
      return Out;
    }
  }
  Result.Sizes = repairSizes(DomainFrom, Stages, chooseSizes(Naive, Opts.Sizes),
                             Opts.Sizes, Opts.Grid);
  Result.Sizes =
      widenDomain(DomainFrom, Stages, Result.Sizes, Opts.Sizes, Opts.Grid);
  bool Race;
  std::string Problem =
      sizeProblem(DomainFrom, Stages, Result.Sizes, Opts.Grid, &Race);
  if (Race) {
    Result.Detail = Problem + "; give sizes where it does not (--size)";
    return Out;
  }
  unsigned KDims = 1;
  for (const Function *F : DomainFrom)
    KDims = std::max(KDims, findDomain(*F).Dims);
  // The domain the launchers compute (guards first, --grid where none), and
  // the threads the naive launch has (--grid where given).
  std::array<bool, 2> Guarded;
  auto D = sequenceDomain(DomainFrom, Result.Sizes, Opts.Grid, &Guarded);
  if (!D)
    return D.takeError();
  Result.Domain = *D;
  std::array<std::int64_t, 2> LaunchThreads = Result.Domain;
  if (Opts.Grid)
    for (unsigned Dim = 0; Dim < 2; ++Dim)
      LaunchThreads[Dim] = (*Opts.Grid)[Dim];
  // An input kernel with a grid-stride loop (GridStride.h) runs on a third
  // of its domain's threads, each taking about three elements, as a grid
  // sized for the device would have it; the optimized kernel on its own.
  bool Strides = llvm::any_of(
      DomainFrom, [](const Function *F) { return F->GridStrideLine != 0; });
  if (Strides && !Opts.Grid)
    LaunchThreads[0] = std::max<std::int64_t>(1, (Result.Domain[0] + 2) / 3);
  // The layers of a 3-D grid (idz): what its z guard lets run, for every
  // launch (the optimized ones run blocks one layer deep).
  std::int64_t Layers = 1;
  bool Layered = false;
  for (const Function *F : DomainFrom) {
    KernelDomain KD = findDomain(*F);
    if (!KD.Layered)
      continue;
    Layered = true;
    auto Z = evaluateLayers(*F, KD, Result.Sizes);
    if (!Z) {
      Result.Detail = llvm::toString(Z.takeError());
      return Out;
    }
    Layers = std::max(Layers, *Z);
  }
  auto Layer = [&](NDRange &R) {
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
  };
  unsigned Dims =
      Result.Domain[1] > 1 || LaunchThreads[1] > 1 || KDims == 2 ? 2 : 1;
  // (A grid-stride loop's third exactly: a block rounded up could cover
  // the domain, each thread taking one element.)
  std::array<bool, 2> Exact = {!Guarded[0] || Strides, !Guarded[1]};
  std::array<std::int64_t, 2> Fixed = {0, 0}, AtMost = {0, 0};
  for (const Function *F : DomainFrom) {
    std::array<std::int64_t, 2> Bound = sharedArrayBlockBound(*F);
    for (unsigned D = 0; D < 2; ++D) {
      Fixed[D] = std::max(Fixed[D], F->FixedBlock[D]);
      if (Bound[D])
        AtMost[D] = AtMost[D] ? std::min(AtMost[D], Bound[D]) : Bound[D];
    }
  }
  LaunchShape NaiveShape = naiveLaunch(Dims, Fixed, AtMost);
  NDRange NaiveRange = rangeFor(LaunchThreads, Dims, NaiveShape, Exact);
  Layer(NaiveRange);
  // Buffers cover every launched thread's accesses, guarded or not: a read
  // before the guard, or past it, must stay inside them.
  std::array<std::int64_t, 2> Covered = {std::int64_t(NaiveRange.Global[0]),
                                         std::int64_t(NaiveRange.Global[1])};
  if (Strides) // its loop reaches the whole domain
    for (unsigned Dim = 0; Dim < 2; ++Dim)
      Covered[Dim] = std::max(Covered[Dim], Result.Domain[Dim]);
  std::map<std::string, std::int64_t> Extents;
  // Arrays no index range bounds: an extent probe measures them (OpenCL).
  std::set<std::string> Unbounded;
  auto Widen = [&](const Function &F, std::array<std::int64_t, 2> Threads,
                   const LaunchShape &S) -> llvm::Error {
    std::set<std::string> Here;
    auto E = bufferExtents(F, Result.Sizes, Threads, S.Block, nullptr, Layers,
                           &Here);
    if (!E)
      return E.takeError();
    if (!Here.empty()) {
      std::string Why = unprobeable(F, Here);
      if (!Why.empty()) { // the analysis's own error, and why no probe
        auto Unprobed =
            bufferExtents(F, Result.Sizes, Threads, S.Block, nullptr, Layers);
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
  };
  std::vector<Launch> Launches;
  bool AnyPlan = false, AnyFallback = false;
  for (const VerifyStage &St : Stages) {
    if (auto E = Widen(*St.Naive, Covered, NaiveShape))
      return E;
    // A planned kernel touches the naive kernel's elements by construction
    // (its shared-memory indices are not global extents anyway).
    if (!St.Emitted->Plan)
      if (auto E = Widen(*St.Emitted, Covered, St.Shape))
        return E;
    Launch L;
    L.Naive = St.Naive->Name;
    L.NaiveRange = NaiveRange;
    L.Candidate = St.Emitted->Name;
    L.Fallback = Opts.Device == DeviceKind::Cuda ? fallbackCall(*St.Naive)
                                                 : fallbackName(St.Naive->Name);
    L.CandidateRange = rangeFor(LaunchThreads, Dims, St.Shape, Exact);
    Layer(L.CandidateRange);
    if (St.Emitted->Plan) {
      const LaunchPlan &P = *St.Emitted->Plan;
      AnyPlan = true;
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
      for (unsigned Dim = 0; Applies && !Strides && Dim < Dims; ++Dim)
        if (Guarded[Dim] && LaunchThreads[Dim] < StageDomain[Dim]) {
          Applies = false;
          Failed = llvm::formatv("the launch ({0} threads in {1}) does not "
                                 "cover the guard's domain ({2})",
                                 LaunchThreads[Dim], Dim == 0 ? "X" : "Y",
                                 StageDomain[Dim]);
        }
      // The optimized kernel's sums in another order: a wider tolerance.
      if (Applies && P.ReassociatedTerms)
        if (auto N = evaluateInteger(*P.ReassociatedTerms, Result.Sizes))
          Result.ReassociatedTerms = std::max(Result.ReassociatedTerms, *N);
      if (!Applies) {
        if (!AnyFallback)
          Result.FailedPrecondition =
              Stages.size() > 1 ? St.Naive->Name + ": " + Failed : Failed;
        AnyFallback = true;
        L.Candidate = L.Fallback;
        L.CandidateRange = L.NaiveRange;
      } else if (P.SameLaunch) {
        L.CandidateRange = L.NaiveRange;
      } else {
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
            Layer(E.Range);
            for (unsigned D = 0; D < P.Dims; ++D) {
              E.Bounds.push_back(R.Begin[D]);
              E.Bounds.push_back(R.End[D]);
            }
            L.Edges.push_back(std::move(E));
          }
        }
        L.CandidateRange = rangeFor(Domain, Dims, S);
        // split-reduction: Lanes threads in X per naive thread.
        L.CandidateRange.Global[0] *= size_t(P.Lanes);
        L.CandidateRange.Local[0] *= size_t(P.Lanes);
        Layer(L.CandidateRange);
      }
      // The arrays read as texels: OpenCL images of the float/int ones;
      // CUDA texture objects of all of them in the object form (the __ldg
      // form reads the buffers).
      bool Texels =
          Opts.Device == DeviceKind::OpenCL || P.Texture == TextureForm::Object;
      if (L.Candidate == St.Emitted->Name && Texels)
        for (const std::string &A : P.TextureArrays) {
          const Param *Par = St.Emitted->findParam(A);
          Type T = Par ? Par->Ty.element() : Type();
          if (!Par || !P.readsAsImage(A, T))
            continue;
          L.Images[A] = T.Scalar == ScalarKind::Float ? TexelChannel::Float
                        : T.Scalar == ScalarKind::Int ? TexelChannel::Int
                                                      : TexelChannel::UInt;
          L.Channels[A] = P.TextureVectorWidth.count(A) ? 4 : 1;
        }
    }
    Launches.push_back(std::move(L));
  }
  if (AnyPlan)
    Result.Path = AnyFallback ? "fallback" : "optimized";
  for (const Launch &L : Launches) {
    VerifyResult::LaunchRecord R{
        L.Naive, L.NaiveRange.Global, L.NaiveRange.Local, {}};
    R.Ran.push_back(
        {L.Candidate, L.CandidateRange.Global, L.CandidateRange.Local});
    for (const Launch::Edge &E : L.Edges)
      R.Ran.push_back({edgeName(L.Naive), E.Range.Global, E.Range.Local});
    Result.Launches.push_back(std::move(R));
  }
  // A version timed for --tune that would fall back here is no candidate at
  // these sizes: nothing to build or run.
  if (Opts.TimedRuns && AnyFallback) {
    Result.Detail = "the launcher runs the fallback at these sizes";
    return Out;
  }

  DeviceRun Run;
  std::set<std::string> &Reached = Out.Reached;
  Run.Device = Opts.Device;
  Run.DeviceIndex = Opts.DeviceIndex;
  std::map<std::string, const Function *> Replacements;
  for (const VerifyStage &St : Stages)
    Replacements[St.Naive->Name] = St.Emitted;
  if (Opts.Device == DeviceKind::Cuda) {
    if (!Opts.ReferenceSource.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--reference is an OpenCL kernel, which runs with --device=opencl");
    auto Programs = cudaVerifyPrograms(M, Replacements, Opts.ParseArgs);
    if (!Programs)
      return Programs.takeError();
    Run.Reference = std::move(Programs->Reference);
    Run.ReferencePrinted = !M.Phased.empty();
    Run.Candidate = std::move(Programs->Candidate);
    Result.Reference = Programs->ReferenceNote;
    // The kernels each program launches, by the names NVRTC finds them by:
    // as written, an instantiation of a template by its template's
    // (axpy<float>), which stays the launcher's fallback, qualified with the
    // namespaces the input declares them in (blas::axpy<float>), where the
    // output keeps them too; the edges and the fallback where a plan has
    // them (a texture too large falls back on the device).
    for (const VerifyStage &St : Stages) {
      std::string Written = cudaKernelName(*St.Naive);
      Run.ReferenceNames[St.Naive->Name] = Written;
      Run.ReferenceKernels.push_back(Written);
    }
    for (Launch &L : Launches) {
      const VerifyStage &St = Stages[size_t(&L - Launches.data())];
      // Unplanned, the input's kernel runs by its name as written.
      auto Launched = [&](const std::string &Name) {
        std::string Found = cudaKernelName(
            *St.Naive, !St.Emitted->Plan && Name == St.Naive->Name ? "" : Name);
        Run.CandidateNames[Name] = Found;
        Run.CandidateKernels.push_back(std::move(Found));
      };
      Launched(L.Candidate);
      if (St.Emitted->Plan && L.Candidate != L.Fallback)
        Launched(L.Fallback);
      if (!L.Edges.empty())
        Launched(edgeName(L.Naive));
    }
  } else {
    // The input as written, unless it is CUDA or had kernels split at
    // global barriers: then the naive kernels (phases) written as OpenCL.
    bool AsWritten = M.Lang == Language::OpenCL && M.Phased.empty();
    Result.Reference =
        AsWritten ? "the OpenCL input as written"
        : M.Lang == Language::OpenCL
            ? "the OpenCL input with its split kernels' phases printed from KIR"
            : "the CUDA input translated to OpenCL by gpumerge";
    // A translation holds only the kernels this run launches and the helpers
    // they call: another kernel that OpenCL cannot build (it calls an
    // intrinsic OpenCL lacks) costs that kernel alone.
    std::vector<const Function *> Roots;
    for (const VerifyStage &St : Stages)
      Roots.insert(Roots.end(), {St.Naive, St.Emitted});
    Reached = M.callClosure(Roots);
    auto Translated = [&](const std::map<std::string, const Function *> &R)
        -> llvm::Expected<std::string> {
      if (M.Lang == Language::Cuda)
        return emitTranslatedPart(M, Language::OpenCL, Reached, R).Text;
      auto E = emitModule(M, Language::OpenCL, R);
      if (!E)
        return E.takeError();
      return std::move(E->Text);
    };
    if (AsWritten) {
      Run.Reference = M.Source;
    } else if (auto T = Translated({})) {
      Run.Reference = std::move(*T);
    } else {
      Result.Detail = llvm::toString(T.takeError());
      return Out;
    }
    Run.ReferencePrinted = !AsWritten;
    if (!Opts.ReferenceSource.empty()) {
      // The reference runs kernel by kernel: a kernel split at its global
      // barriers has no counterpart there to run phase by phase.
      if (!M.Phased.empty()) {
        Result.Detail = "--reference cannot stand for kernels split at global "
                        "barriers (they run as their phases)";
        return Out;
      }
      Result.Reference = Opts.ReferenceName + " (--reference)";
      Run.Reference = Opts.ReferenceSource;
      Run.ReferencePrinted = false;
    }
    if (auto T = Translated(Replacements)) {
      Run.Candidate = std::move(*T);
    } else {
      Result.Detail = llvm::toString(T.takeError());
      return Out;
    }
    std::string Checking = Run.Candidate;
    // The optimized kernels run checking their shared-memory accesses for
    // races, which PoCL's order of work-items hides (a --tune candidate on
    // some of its work-groups, beside the runs it is timed by).
    for (size_t I = 0; I < Stages.size(); ++I) {
      const Function &E = *Stages[I].Emitted;
      if (!E.Plan || Launches[I].Candidate != E.Name)
        continue;
      // --debug-fail=verify-candidate=drop-barrier (tests): the kernel run
      // lacks its last barrier, a race the check must report.
      std::unique_ptr<Function> Broken;
      if (Opts.DebugFailCandidate == "drop-barrier")
        Broken = withoutLastBarrier(E);
      if (Opts.DebugFailCandidate == "weaken-wait")
        Broken = withWeakerWaits(E);
      auto Checked = emitRaceChecked(Broken ? *Broken : E);
      std::string Plain = emitFunction(E, Language::OpenCL);
      size_t At = Checking.find(Plain);
      if (!Checked || At == std::string::npos)
        continue;
      Checking.replace(At, Plain.size(), Checked->Text);
      Run.RaceChecked[E.Name] = Checked->Arrays;
    }
    if (!Run.RaceChecked.empty())
      Run.CheckedCandidate = raceCheckHelpers() + Checking;
    for (const auto &F : M.Functions)
      if (!F->IsKernel && Reached.count(F->Name) && readsGridPlace(*F))
        Run.NotSampled = "'" + F->Name +
                         "' reads the grid position, which a launch of some "
                         "of the work-groups changes";
    // A CUDA kernel named like an OpenCL built-in function (`step`, `dot`)
    // runs under another name in the translation.
    for (const Function *F : M.kernels()) {
      std::string New = translatedKernelName(M, F->Name);
      if (New == F->Name)
        continue;
      renameKernel(Run.Candidate, F->Name, New);
      renameKernel(Run.CheckedCandidate, F->Name, New);
      Run.CandidateNames[F->Name] = New;
      if (Opts.ReferenceSource.empty()) {
        renameKernel(Run.Reference, F->Name, New);
        Run.ReferenceNames[F->Name] = New;
      }
    }
  }
  Run.BuildOptions = Opts.BuildOptions;
  Run.DebugFail = Opts.DebugFailCandidate;
  Run.TimedRuns = Opts.TimedRuns;
  Run.Launches = std::move(Launches);
  Run.Params = Naive.Params;
  // CUDA __constant__ arrays the host fills: arguments after the kernel's
  // own in the OpenCL translation, random like every input.
  if (!Naive.ConstantArrays.empty() && !Opts.ReferenceSource.empty()) {
    Result.Detail = "the kernel reads __constant__ arrays, which a "
                    "--reference kernel cannot take as the translation does";
    return Out;
  }
  for (const Param &C : Naive.ConstantArrays) {
    std::int64_t N = C.DeclaredRows;
    for (std::int64_t X : C.Ty.InnerExtents)
      N *= X;
    Extents[C.Name] = N;
    Run.Params.push_back(C);
    ++Run.ConstantArrays;
  }
  // The arrays to measure start at a size the probe may raise.
  for (const std::string &A : Unbounded)
    Extents[A] = std::max<std::int64_t>(Extents[A], 1 << 16);
  Run.Extents = Extents;

  // Same inputs for both runs: generate once, upload twice.
  auto MakingInputs = std::chrono::steady_clock::now();
  unsigned FloatParam = 0;
  for (const Param &P : Run.Params) {
    if (P.Ty.IsPointer)
      Run.Scalars.push_back(0);
    else if (P.Ty.isInteger())
      Run.Scalars.push_back(
          double(Result.Sizes.count(P.Name) ? Result.Sizes.at(P.Name) : 0));
    else // alpha, beta, ...: distinct values that are not 0 or 1.
      Run.Scalars.push_back(1.25 + 0.5 * FloatParam++);
  }
  bool SameInputs = Like && Like->Inputs && Like->Extents == Run.Extents &&
                    Like->Params.size() == Run.Params.size();
  for (size_t I = 0; SameInputs && I < Run.Params.size(); ++I)
    SameInputs = Like->Params[I].Name == Run.Params[I].Name &&
                 Like->Params[I].Ty == Run.Params[I].Ty;
  std::set<std::string> Indices, Scatters;
  for (const VerifyStage &St : Stages) {
    std::set<std::string> Of = arraysSteeringIndices(*St.Naive);
    Indices.insert(Of.begin(), Of.end());
    std::set<std::string> Writes = arraysSteeringWrites(*St.Naive);
    Scatters.insert(Writes.begin(), Writes.end());
  }
  auto MakeInputs = [&] {
    Random R{Opts.Seed};
    std::vector<std::vector<std::uint8_t>> Inputs;
    for (const Param &P : Run.Params)
      Inputs.push_back(!P.Ty.IsPointer ? std::vector<std::uint8_t>()
                       : Scatters.count(P.Name)
                           ? permutedIndices(P.Ty.element(), Extents[P.Name], R)
                           : randomContents(P.Ty.element(), Extents[P.Name], R,
                                            Indices.count(P.Name) > 0));
    Run.Inputs = std::make_shared<const std::vector<std::vector<std::uint8_t>>>(
        std::move(Inputs));
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
  if (!Unbounded.empty() && !SameInputs)
    if (!probeExtents(M, Stages, Unbounded, Run, Extents, MakeInputs,
                      Result.Detail))
      return Out;
  Out.Run = std::move(Run);
  return Out;
}

/// An error with \p Message.
static llvm::Error runError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message.str());
}

namespace {
/// Receives each run's result by its index in the batch.
using DoneFn = llvm::function_ref<void(size_t, llvm::Expected<VerifyResult>)>;

/// One child process of runPrepared: the runs of a batch from \p Next on
/// (\p Left), and what the child has said of them, line by line.
class ChildRun {
public:
  ChildRun(const Module &M, llvm::ArrayRef<PreparedRun *> Left, size_t Next,
           bool &InputBuildFailed, DoneFn Done)
      : M(M), Left(Left), Next(Next), InputBuildFailed(InputBuildFailed),
        Done(Done), Started(std::chrono::steady_clock::now()),
        CandidateStarted(Started) {}

  /// Takes one line the child sent; true where it starts a candidate after
  /// the first, which has the whole time limit again (the first's covers
  /// the input's run too).
  bool onLine(llvm::StringRef Line);

  /// The running candidate's wall time: the first's from the child's start
  /// (its window holds the input's run too).
  double sinceItsStart() const {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now() -
               (*Current ? CandidateStarted : Started))
        .count();
  }

  bool ReferenceRan = false, CandidateRan = false;
  double ReferenceSeconds = 0;
  std::optional<size_t> Current;       // into Left: the candidate running
  size_t Finished = 0;                 // of Left, the runs with a result
  std::optional<std::string> Everyone; // an error before any candidate

private:
  std::string message(llvm::StringRef Line) const;
  void onResult(llvm::StringRef Line);

  const Module &M;
  llvm::ArrayRef<PreparedRun *> Left;
  size_t Next;
  bool &InputBuildFailed;
  DoneFn Done;
  std::chrono::steady_clock::time_point Started, CandidateStarted;
};
} // namespace

/// The error a candidate's run sent, with the call OpenCL lacks named.
std::string ChildRun::message(llvm::StringRef Line) const {
  auto J = llvm::json::parse(Line);
  std::string Text =
      J && J->getAsString() ? J->getAsString()->str() : Line.str();
  if (!J)
    llvm::consumeError(J.takeError());
  const PreparedRun &P = *Left.front();
  if (InputBuildFailed && P.Run->ReferencePrinted)
    if (std::string Call = untranslatedCall(M, P.Reached, Text); !Call.empty())
      Text = "it calls '" + Call +
             "', which gpumerge cannot write in OpenCL (a gpumerge "
             "limit: verify runs CUDA kernels translated, on PoCL "
             "here; a CUDA device runs them as written): " +
             Text;
  return Text;
}

bool ChildRun::onLine(llvm::StringRef Line) {
  if (Line == "input-build-failed") {
    InputBuildFailed = true;
  } else if (Line.consume_front("reference-ran")) {
    ReferenceRan = true;
    Line.trim().getAsDouble(ReferenceSeconds);
  } else if (Line.consume_front("candidate ")) {
    size_t I = 0;
    Line.getAsInteger(10, I);
    Current = I;
    CandidateRan = false;
    CandidateStarted = std::chrono::steady_clock::now();
    return I > 0;
  } else if (Line == "candidate-ran") {
    CandidateRan = true;
  } else if (Line.consume_front("error ")) {
    if (!Current)
      Everyone = message(Line);
    else
      Done(Next + *Current, runError(message(Line)));
    Finished = Current ? *Current + 1 : 0;
  } else if (Line.consume_front("result ") && Current) {
    onResult(Line);
  }
  return false;
}

/// The result the running candidate sent: its phases with the parent's
/// around them (making the inputs, the isolation's cost).
void ChildRun::onResult(llvm::StringRef Line) {
  const PreparedRun &P = *Left[*Current];
  VerifyResult Result = P.Result;
  std::string Planned = Result.Path;
  Result.PhaseSeconds.clear();
  Finished = *Current + 1;
  if (!readResult(Line, Result)) {
    Done(Next + *Current, runError("garbled result from the verify run"));
    return;
  }
  // The run fell back where a texel view exceeds the device's limit:
  // the launches that read texels ran their fallback.
  if (Planned == "optimized" && Result.Path == "fallback")
    for (size_t I = 0; I < P.Run->Launches.size(); ++I)
      if (!P.Run->Launches[I].Images.empty())
        Result.Launches[I].Ran = {{P.Run->Launches[I].Fallback,
                                   P.Run->Launches[I].NaiveRange.Global,
                                   P.Run->Launches[I].NaiveRange.Local}};
  double InChild = 0;
  for (const auto &Phase : Result.PhaseSeconds)
    InChild += Phase.second;
  Result.PhaseSeconds.insert(Result.PhaseSeconds.begin(),
                             {"inputs", P.InputSeconds});
  Result.PhaseSeconds.push_back(
      {"isolation", std::max(0.0, sinceItsStart() - InChild)});
  Done(Next + *Current, std::move(Result));
}

/// The result of the candidate running when \p Child ended without its
/// result, for \p Why: too slow to call a hang, wrong code (it crashed or
/// hung after the input ran), or a comparison that failed.
static VerifyResult endedRun(const ChildRun &Child, VerifyResult Result,
                             const std::string &Why, unsigned Timeout) {
  const double Elapsed = Child.sinceItsStart();
  // The first candidate's limit covers the input's run too: see
  // tooSlowToCallAHang.
  const double Limit =
      *Child.Current ? Timeout + Child.ReferenceSeconds : Timeout;
  if (!Child.CandidateRan && Elapsed >= Timeout &&
      tooSlowToCallAHang(unsigned(std::ceil(Limit)), Child.ReferenceSeconds)) {
    Result.Outcome = VerifyResult::Status::Skipped;
    Result.Detail = llvm::formatv(
        "the emitted kernel did not finish in the {0:f1} s the time limit "
        "left after the input's {1:f1} s run (smaller sizes with --size, or "
        "a larger GPUMERGE_VERIFY_TIMEOUT)",
        std::max(Limit - Child.ReferenceSeconds, 0.0), Child.ReferenceSeconds);
  } else if (!Child.CandidateRan) {
    // The input ran; the emitted kernel crashed or hung: wrong code.
    Result.Outcome = VerifyResult::Status::Mismatch;
    Result.Detail = "the emitted kernel failed on the device: " + Why;
  } else {
    Result.Outcome = VerifyResult::Status::Skipped;
    Result.Detail = "comparing the results failed: " + Why;
  }
  return Result;
}

/// Runs \p Batch, whose runs share their reference (sameReference), on the
/// device in a child process, the input's kernels once for all; \p Done
/// receives each run's result by its index, in order, as it comes. Where
/// the child ends at a candidate (it crashed, hung, or its launch failed,
/// which may leave a CUDA context unusable), the rest run in a new one.
/// \p InputBuildFailed says whether the input's build failed there.
static void runPrepared(const Module &M, llvm::ArrayRef<PreparedRun *> Batch,
                        const VerifyOptions &Opts, bool &InputBuildFailed,
                        DoneFn Done) {
  const unsigned Timeout =
      Opts.TimeoutSeconds ? Opts.TimeoutSeconds : verifyTimeoutSeconds();
  InputBuildFailed = false;
  size_t Next = 0; // the first run that has no result yet
  while (Next < Batch.size()) {
    llvm::ArrayRef<PreparedRun *> Left = Batch.drop_front(Next);
    std::vector<const DeviceRun *> Runs;
    std::vector<VerifyResult> Results;
    for (const PreparedRun *P : Left) {
      Runs.push_back(&*P->Run);
      Results.push_back(P->Result);
    }
    ChildRun Child(M, Left, Next, InputBuildFailed, Done);
    // The kernels run in a child process: one that writes out of bounds or
    // never ends costs this verify run, not gpumerge.
    std::string Output;
    llvm::Error Failed = runIsolated(
        [&](SendFn Send) { executeOnDevice(Runs, Results, Send); }, Timeout,
        Output, [&](llvm::StringRef Line) { return Child.onLine(Line); });
    if (Child.Everyone) {
      llvm::consumeError(std::move(Failed));
      for (size_t I = Next; I < Batch.size(); ++I)
        Done(I, runError(*Child.Everyone));
      return;
    }
    if (Child.Current && Child.Finished == *Child.Current + 1) {
      // The child ended with the candidate it ran done (its error ends the
      // child): the rest, if any, go on in another.
      llvm::consumeError(std::move(Failed));
      Next += Child.Finished;
      continue;
    }
    std::string Why = Failed ? llvm::toString(std::move(Failed))
                             : "the verify run ended without a result";
    if (!Child.ReferenceRan || !Child.Current) {
      for (size_t I = Next; I < Batch.size(); ++I) {
        VerifyResult Result = Batch[I]->Result;
        Result.Outcome = VerifyResult::Status::Skipped;
        Result.Detail = (Child.ReferenceRan ? "comparing the results failed: "
                                            : "the input kernel failed on the "
                                              "device at these sizes: ") +
                        Why;
        Done(I, std::move(Result));
      }
      return;
    }
    // The candidate running when the child ended gets why; the rest run in
    // another child.
    Done(Next + *Child.Current,
         endedRun(Child, Left[*Child.Current]->Result, Why, Timeout));
    Next += *Child.Current + 1;
  }
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

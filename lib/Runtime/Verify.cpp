//===- Verify.cpp - Run naive and emitted kernels, compare ----------------===//
#include "Runtime/Verify.h"
#include "CodeGen/Emitter.h"
#include "IR/Evaluate.h"
#include "IR/Printer.h"
#include "Runtime/OpenCLSession.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <functional>

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

LaunchShape naiveLaunch(unsigned Dims) {
  LaunchShape S;
  S.Block = Dims == 2 ? std::array<std::int64_t, 2>{16, 16}
                      : std::array<std::int64_t, 2>{256, 1};
  return S;
}

SizeBindings chooseSizes(const Function &F, const SizeBindings &Given) {
  static const std::int64_t Defaults[] = {67, 45, 53, 39, 71, 29, 61, 37};
  static const std::int64_t Offsets[] = {3, 5, 7, 9, 11, 13};
  SizeBindings S;
  unsigned NextDefault = 0, NextOffset = 0;
  for (const Param &P : F.Params) {
    if (P.Ty.IsPointer || !P.Ty.isInteger())
      continue;
    if (auto It = Given.find(P.Name); It != Given.end()) {
      S[P.Name] = It->second;
    } else if (auto H = F.SizeHints.find(P.Name); H != F.SizeHints.end()) {
      std::int64_t V = H->second;
      S[P.Name] = V >= 256 ? V / 32 + Offsets[NextOffset++ % 6] : V;
    } else {
      S[P.Name] = Defaults[NextDefault++ % 8];
    }
  }
  return S;
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
template <typename T> T get(const std::vector<std::uint8_t> &B, size_t I) {
  T V;
  std::memcpy(&V, B.data() + I * sizeof(T), sizeof(T));
  return V;
}

unsigned scalarBytes(ScalarKind K) { return Type::scalar(K).elementBytes(); }

/// Pseudo-random contents for an array of \p Count elements of \p T:
/// floats in [-1, 1), integers in [-8, 8].
std::vector<std::uint8_t> randomContents(const Type &T, std::int64_t Count,
                                         Random &R) {
  unsigned Lanes = T.VectorWidth == 3 ? 4 : T.VectorWidth;
  size_t N = size_t(Count) * Lanes;
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
    case ScalarKind::Int:
      put<std::int32_t>(B, I, std::int32_t(U * 17) - 8);
      break;
    case ScalarKind::UInt:
      put<std::uint32_t>(B, I, std::uint32_t(U * 17));
      break;
    case ScalarKind::Long:
      put<std::int64_t>(B, I, std::int64_t(U * 17) - 8);
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

/// Largest relative difference |a-b| / max(1, |a|, |b|) over the elements;
/// NaN in both at the same place counts as equal. Sets \p FirstBad.
double compare(const Type &T, const std::vector<std::uint8_t> &A,
               const std::vector<std::uint8_t> &B, double Tolerance,
               std::int64_t &FirstBad) {
  unsigned Bytes = scalarBytes(T.Scalar);
  size_t N = std::min(A.size(), B.size()) / Bytes;
  double Max = 0;
  FirstBad = -1;
  for (size_t I = 0; I < N; ++I) {
    double X, Y;
    switch (T.Scalar) {
    case ScalarKind::Float:
      X = get<float>(A, I);
      Y = get<float>(B, I);
      break;
    case ScalarKind::Double:
      X = get<double>(A, I);
      Y = get<double>(B, I);
      break;
    default:
      X = std::memcmp(A.data() + I * Bytes, B.data() + I * Bytes, Bytes) ? 1
                                                                         : 0;
      Y = 0;
    }
    double E;
    if (std::isnan(X) || std::isnan(Y))
      E = std::isnan(X) && std::isnan(Y) ? 0 : INFINITY;
    else if (X == Y)
      E = 0;
    else
      E = std::fabs(X - Y) / std::max({1.0, std::fabs(X), std::fabs(Y)});
    if (E > Max)
      Max = E;
    if (E > Tolerance && FirstBad < 0)
      FirstBad = std::int64_t(I);
  }
  return Max;
}

KernelArg scalarArg(const Type &T, double Value) {
  switch (T.Scalar) {
  case ScalarKind::Float:
    return KernelArg::f32(float(Value));
  case ScalarKind::Double:
    return KernelArg::f64(Value);
  case ScalarKind::Long:
  case ScalarKind::ULong:
    return KernelArg::i64(std::int64_t(Value));
  case ScalarKind::UInt:
    return KernelArg::u32(std::uint32_t(Value));
  default:
    return KernelArg::i32(std::int32_t(Value));
  }
}

NDRange rangeFor(const std::array<std::int64_t, 2> &Domain, unsigned Dims,
                 const LaunchShape &S) {
  NDRange R;
  R.Dims = Dims;
  for (unsigned D = 0; D < Dims; ++D) {
    std::int64_t Threads = (Domain[D] + S.Coverage[D] - 1) / S.Coverage[D];
    std::int64_t Blocks = (Threads + S.Block[D] - 1) / S.Block[D];
    R.Global[D] = size_t(Blocks * S.Block[D]);
    R.Local[D] = size_t(S.Block[D]);
  }
  return R;
}

} // namespace

/// The launch conditions of \p Plan for a naive domain of \p NaiveDomain
/// threads at \p Sizes: how many hold, out of \p Total; \p Failed (when
/// given) says why the first that does not hold fails.
static unsigned conditionsHeld(const LaunchPlan &Plan,
                               const std::array<std::int64_t, 2> &NaiveDomain,
                               const SizeBindings &Sizes, unsigned &Total,
                               std::string *Failed = nullptr) {
  std::array<std::int64_t, 2> Domain = NaiveDomain;
  if (Plan.Interchanged)
    std::swap(Domain[0], Domain[1]);
  unsigned Held = 0;
  Total = 0;
  auto Note = [&](bool Holds, const std::function<std::string()> &Why) {
    ++Total;
    Held += Holds;
    if (!Holds && Failed && Failed->empty())
      *Failed = Why();
  };
  if (!Plan.SameLaunch && !Plan.GuardsDomain)
    for (unsigned D = 0; D < Plan.Dims; ++D)
      Note(Domain[D] % Plan.tile(D) == 0, [&] {
        return llvm::formatv("the domain ({0} threads in {1}) is not a "
                             "multiple of the tile ({2})",
                             Domain[D], D == 0 ? "X" : "Y", Plan.tile(D))
            .str();
      });
  for (const Precondition &P : Plan.Preconditions) {
    auto V = evaluateInteger(*P.Cond, Sizes);
    Note(V && *V, [&] {
      return printExprDebug(*P.Cond) + " does not hold (" + P.Why + ")";
    });
  }
  return Held;
}

bool planApplies(const LaunchPlan &Plan,
                 const std::array<std::int64_t, 2> &NaiveDomain,
                 const SizeBindings &Sizes, std::string &Failed) {
  unsigned Total;
  Failed.clear();
  return conditionsHeld(Plan, NaiveDomain, Sizes, Total, &Failed) == Total;
}

llvm::Expected<std::array<std::int64_t, 2>>
sequenceDomain(const std::vector<const Function *> &DomainFrom,
               const SizeBindings &Sizes) {
  if (DomainFrom.size() == 1)
    return evaluateDomain(*DomainFrom[0], findDomain(*DomainFrom[0]), Sizes);
  // Per dimension, the largest domain a guard gives: the grid covers every
  // phase's threads, and a phase without a guard there runs over it too.
  std::array<std::int64_t, 2> Result = {0, 0};
  std::optional<llvm::Error> First;
  unsigned Dims = 1;
  for (const Function *F : DomainFrom) {
    KernelDomain KD = findDomain(*F);
    Dims = std::max(Dims, KD.Dims);
    for (unsigned D = 0; D < KD.Dims; ++D) {
      if (KD.Bounds[D].empty())
        continue;
      // This dimension's guards: the smallest bound holds.
      std::optional<std::int64_t> Min;
      bool Ok = true;
      for (const DomainBound &B : KD.Bounds[D]) {
        auto V = evaluateScalar(*B.Bound, *F, Sizes);
        if (!V) {
          Ok = false;
          if (!First)
            First = llvm::createStringError(
                llvm::inconvertibleErrorCode(),
                llvm::formatv("cannot evaluate the bounds guard of kernel "
                              "'{0}' at line {1}: give every size it uses "
                              "with --size",
                              F->Name, B.Line)
                    .str());
          break;
        }
        Min = Min ? std::min(*Min, *V + B.Offset) : *V + B.Offset;
      }
      if (Ok && Min)
        Result[D] = std::max(Result[D], *Min);
    }
  }
  for (unsigned D = 0; D < 2; ++D) {
    if (D >= Dims) {
      Result[D] = 1;
      continue;
    }
    if (Result[D] > 0)
      continue;
    if (First)
      return std::move(*First);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot infer the launch domain of kernel '{0}' in {1}: "
                      "no bounds guard of its phases compares the thread "
                      "position with a size; give --grid",
                      DomainFrom[0]->PhaseOf.empty() ? DomainFrom[0]->Name
                                                     : DomainFrom[0]->PhaseOf,
                      D == 0 ? "X" : "Y")
            .str());
  }
  if (First)
    llvm::consumeError(std::move(*First));
  return Result;
}

std::optional<SizeBindings>
sizesForOptimizedStages(const std::vector<const Function *> &DomainFrom,
                        const std::vector<VerifyStage> &Stages,
                        const SizeBindings &Sizes) {
  std::vector<const LaunchPlan *> Plans;
  for (const VerifyStage &St : Stages)
    if (St.Emitted->Plan)
      Plans.push_back(&*St.Emitted->Plan);
  if (Plans.empty())
    return Sizes;
  const Function &Naive = *Stages.front().Naive;
  SizeBindings S = chooseSizes(Naive, Sizes);
  // Conditions held at X; -1 when X leaves the domain empty.
  unsigned Total = 0;
  auto Score = [&](const SizeBindings &X) {
    auto D = sequenceDomain(DomainFrom, X);
    if (!D) {
      llvm::consumeError(D.takeError());
      return -1;
    }
    int Held = 0;
    Total = 0;
    for (const LaunchPlan *P : Plans) {
      unsigned T;
      Held += int(conditionsHeld(*P, *D, X, T));
      Total += T;
    }
    return Held;
  };
  auto Holds = [&](const SizeBindings &X) {
    int N = Score(X);
    return N >= 0 && unsigned(N) == Total;
  };
  // Raise one size at a time, in parameter order, by the smallest step
  // that makes more of the conditions hold; a few rounds settle it.
  for (unsigned Round = 0; Round < 4 && !Holds(S); ++Round)
    for (const Param &P : Naive.Params) {
      if (!S.count(P.Name) || Holds(S))
        continue;
      int Base = Score(S);
      for (std::int64_t Step = 1; Step <= 4096; ++Step) {
        SizeBindings T = S;
        T[P.Name] += Step;
        if (Score(T) > Base) {
          S = T;
          break;
        }
      }
    }
  if (!Holds(S))
    return std::nullopt;
  return S;
}

std::optional<SizeBindings> sizesForOptimizedPath(const Function &Naive,
                                                  const Function &Emitted,
                                                  const SizeBindings &Sizes) {
  return sizesForOptimizedStages({&Naive}, {{&Naive, &Emitted, {}}}, Sizes);
}

llvm::Expected<VerifyResult>
verifyKernel(const Module &M, const Function &Naive, const Function &Emitted,
             const LaunchShape &Shape, const VerifyOptions &Opts) {
  return verifyStages(M, {&Naive}, {{&Naive, &Emitted, Shape}}, Opts);
}

llvm::Expected<VerifyResult>
verifyStages(const Module &M, const std::vector<const Function *> &DomainFrom,
             const std::vector<VerifyStage> &Stages,
             const VerifyOptions &Opts) {
  VerifyResult Result;
  const Function &Naive = *Stages.front().Naive;
  for (const VerifyStage &St : Stages)
    if (hasGlobalSync(*St.Naive)) {
      Result.Detail = "the kernel has a global barrier that was not split";
      return Result;
    }
  Result.Sizes = chooseSizes(Naive, Opts.Sizes);
  unsigned KDims = 1;
  for (const Function *F : DomainFrom)
    KDims = std::max(KDims, findDomain(*F).Dims);
  if (Opts.Grid) {
    Result.Domain = *Opts.Grid;
  } else {
    auto D = sequenceDomain(DomainFrom, Result.Sizes);
    if (!D)
      return D.takeError();
    Result.Domain = *D;
  }
  unsigned Dims = Result.Domain[1] > 1 || KDims == 2 ? 2 : 1;
  LaunchShape NaiveShape = naiveLaunch(Dims);
  std::map<std::string, std::int64_t> Extents;
  auto Widen = [&](const Function &F, const LaunchShape &S) -> llvm::Error {
    auto E = bufferExtents(F, Result.Sizes, Result.Domain, S.Block);
    if (!E)
      return E.takeError();
    for (auto &[Name, N] : *E)
      Extents[Name] = std::max(Extents[Name], N);
    return llvm::Error::success();
  };
  // What the generated launchers would run at these sizes, stage by stage.
  struct Launch {
    std::string Naive, Candidate;
    NDRange NaiveRange, CandidateRange;
    /// Arrays the candidate reads as images (texture variant, OpenCL).
    std::map<std::string, OpenCLSession::ImageChannel> Images;
    std::map<std::string, unsigned> Channels; ///< 4: read as 4-vectors
  };
  std::vector<Launch> Launches;
  bool AnyPlan = false, AnyFallback = false;
  for (const VerifyStage &St : Stages) {
    if (auto E = Widen(*St.Naive, NaiveShape))
      return E;
    // A planned kernel touches the naive kernel's elements by construction
    // (its shared-memory indices are not global extents anyway).
    if (!St.Emitted->Plan)
      if (auto E = Widen(*St.Emitted, St.Shape))
        return E;
    Launch L;
    L.Naive = St.Naive->Name;
    L.NaiveRange = rangeFor(Result.Domain, Dims, NaiveShape);
    L.Candidate = St.Emitted->Name;
    L.CandidateRange = rangeFor(Result.Domain, Dims, St.Shape);
    if (St.Emitted->Plan) {
      const LaunchPlan &P = *St.Emitted->Plan;
      AnyPlan = true;
      std::string Failed;
      if (!planApplies(P, Result.Domain, Result.Sizes, Failed)) {
        if (!AnyFallback)
          Result.FailedPrecondition =
              Stages.size() > 1 ? St.Naive->Name + ": " + Failed : Failed;
        AnyFallback = true;
        L.Candidate = fallbackName(St.Naive->Name);
        L.CandidateRange = L.NaiveRange;
      } else if (P.SameLaunch) {
        L.CandidateRange = L.NaiveRange;
      } else {
        LaunchShape S;
        S.Block = P.Block;
        S.Coverage = P.Coverage;
        std::array<std::int64_t, 2> Domain = Result.Domain;
        if (P.Interchanged)
          std::swap(Domain[0], Domain[1]);
        L.CandidateRange = rangeFor(Domain, Dims, S);
      }
    }
    Launches.push_back(std::move(L));
  }
  if (AnyPlan)
    Result.Path = AnyFallback ? "fallback" : "optimized";

  // The input as written, unless it is CUDA or had kernels split at global
  // barriers: then the naive kernels (phases) written as OpenCL.
  std::string Reference = M.Lang == Language::OpenCL && M.Phased.empty()
                              ? M.Source
                              : emitModule(M, Language::OpenCL).Text;
  std::map<std::string, const Function *> Replacements;
  for (const VerifyStage &St : Stages)
    Replacements[St.Naive->Name] = St.Emitted;
  std::string Candidate = emitModule(M, Language::OpenCL, Replacements).Text;

  auto Session = OpenCLSession::create();
  if (!Session)
    return Session.takeError();
  auto RefProgram = (*Session)->buildProgram(Reference);
  if (!RefProgram)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the input kernel does not build as OpenCL: " +
            llvm::toString(RefProgram.takeError()));
  auto CandProgram = (*Session)->buildProgram(Candidate);
  if (!CandProgram)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the emitted kernel does not build as OpenCL (a gpumerge bug): " +
            llvm::toString(CandProgram.takeError()));

  // The texture variant reads its read-only float/int arrays as images over
  // the buffers, made as the header's helper makes them (Launcher.h); where
  // one would exceed the device's image size the naive kernel runs instead.
  for (size_t I = 0; I < Stages.size(); ++I) {
    const Function &Emitted = *Stages[I].Emitted;
    Launch &L = Launches[I];
    if (!Emitted.Plan || L.Candidate != Emitted.Name)
      continue;
    for (const std::string &A : Emitted.Plan->TextureArrays) {
      const Param *P = Emitted.findParam(A);
      Type T = P ? P->Ty.element() : Type();
      if (!P || !readAsImage(T))
        continue;
      L.Images[A] =
          T.Scalar == ScalarKind::Float ? OpenCLSession::ImageChannel::Float
          : T.Scalar == ScalarKind::Int ? OpenCLSession::ImageChannel::Int
                                        : OpenCLSession::ImageChannel::UInt;
      unsigned Channels = Emitted.Plan->TextureVectorWidth.count(A) ? 4 : 1;
      L.Channels[A] = Channels;
      std::size_t Width =
          std::size_t(std::max<std::int64_t>(1, Extents[A] / Channels));
      if (Width > (*Session)->imageMaxBufferSize()) {
        Result.Path = "fallback";
        if (Result.FailedPrecondition.empty())
          Result.FailedPrecondition = llvm::formatv(
              "'{0}' needs an image of {1} elements, over the device's {2} "
              "(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE)",
              A, Width, (*Session)->imageMaxBufferSize());
        L.Candidate = fallbackName(Stages[I].Naive->Name);
        L.CandidateRange = L.NaiveRange;
        L.Images.clear();
        break;
      }
    }
  }

  // Same inputs for both runs: generate once, upload twice.
  Random R{Opts.Seed};
  std::vector<std::vector<std::uint8_t>> Inputs;
  std::vector<double> Scalars;
  unsigned FloatParam = 0;
  for (const Param &P : Naive.Params) {
    if (P.Ty.IsPointer) {
      Inputs.push_back(randomContents(P.Ty.element(), Extents[P.Name], R));
      Scalars.push_back(0);
    } else if (P.Ty.isInteger()) {
      Inputs.emplace_back();
      Scalars.push_back(
          double(Result.Sizes.count(P.Name) ? Result.Sizes.at(P.Name) : 0));
    } else {
      Inputs.emplace_back();
      // alpha, beta, ...: distinct values that are not 0 or 1.
      Scalars.push_back(1.25 + 0.5 * FloatParam++);
    }
  }

  auto Run = [&](unsigned Program, bool Reference)
      -> llvm::Expected<std::vector<std::vector<std::uint8_t>>> {
    std::vector<unsigned> Buffers;
    for (size_t I = 0; I < Naive.Params.size(); ++I) {
      if (!Naive.Params[I].Ty.IsPointer)
        continue;
      auto B = (*Session)->createBuffer(Inputs[I]);
      if (!B)
        return B.takeError();
      Buffers.push_back(*B);
    }
    // In order on one in-order queue: each launch sees the one before.
    std::map<std::string, unsigned> ImageOf;
    for (const Launch &L : Launches) {
      std::vector<KernelArg> Args;
      size_t Buffer = 0;
      for (size_t I = 0; I < Naive.Params.size(); ++I) {
        const Param &P = Naive.Params[I];
        if (!P.Ty.IsPointer) {
          Args.push_back(scalarArg(P.Ty, Scalars[I]));
          continue;
        }
        unsigned B = Buffers[Buffer++];
        auto Img = Reference ? L.Images.end() : L.Images.find(P.Name);
        if (Img == L.Images.end()) {
          Args.push_back(KernelArg::buffer(B));
          continue;
        }
        if (!ImageOf.count(P.Name)) {
          unsigned Channels = L.Channels.at(P.Name);
          auto Image = (*Session)->createImage1DBuffer(
              B, Img->second,
              std::size_t(
                  std::max<std::int64_t>(1, Extents[P.Name] / Channels)),
              Channels);
          if (!Image)
            return Image.takeError();
          ImageOf[P.Name] = *Image;
        }
        Args.push_back(KernelArg::buffer(ImageOf[P.Name]));
      }
      if (auto E = (*Session)->launch(
              Program, Reference ? L.Naive : L.Candidate, Args,
              Reference ? L.NaiveRange : L.CandidateRange))
        return E;
    }
    std::vector<std::vector<std::uint8_t>> Out;
    for (unsigned B : Buffers) {
      auto Data = (*Session)->readBuffer(B);
      if (!Data)
        return Data.takeError();
      Out.push_back(std::move(*Data));
    }
    return Out;
  };
  auto Expected = Run(*RefProgram, true);
  if (!Expected)
    return Expected.takeError();
  auto Actual = Run(*CandProgram, false);
  if (!Actual)
    return Actual.takeError();

  Result.Outcome = VerifyResult::Status::Ok;
  size_t BufferIndex = 0;
  for (const Param &P : Naive.Params) {
    if (!P.Ty.IsPointer)
      continue;
    Type T = P.Ty.element();
    double Tolerance = T.Scalar == ScalarKind::Double  ? 1e-9
                       : T.Scalar == ScalarKind::Float ? 1e-4
                                                       : 0;
    std::int64_t FirstBad;
    double E = compare(T, (*Expected)[BufferIndex], (*Actual)[BufferIndex],
                       Tolerance, FirstBad);
    Result.MaxRelError = std::max(Result.MaxRelError, E);
    if (FirstBad >= 0 && Result.Outcome == VerifyResult::Status::Ok) {
      Result.Outcome = VerifyResult::Status::Mismatch;
      Result.Detail = llvm::formatv("'{0}' differs first at element {1} "
                                    "(relative error {2:e})",
                                    P.Name, FirstBad, E)
                          .str();
    }
    ++BufferIndex;
  }
  return Result;
}

} // namespace gpumerge

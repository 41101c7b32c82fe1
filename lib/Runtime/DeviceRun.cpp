//===- DeviceRun.cpp - What a verify run does on the device ---------------===//
#include "Runtime/DeviceRun.h"
#include "IR/HalfPrecision.h"

#include "CodeGen/EdgeKernel.h"
#include "Runtime/CudaSession.h"
#include "Runtime/OpenCLSession.h"
#include "Runtime/WriteCollisionRun.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cfloat>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <optional>
#include <unistd.h>

namespace gpumerge {

namespace {

template <typename T> T get(const std::vector<std::uint8_t> &B, size_t I) {
  T V;
  std::memcpy(&V, B.data() + I * sizeof(T), sizeof(T));
  return V;
}

/// Largest relative difference |a-b| / max(1, |a|, |b|) over the elements;
/// NaN in both at the same place counts as equal. Sets \p FirstBad.
double compare(const Type &T, const std::vector<std::uint8_t> &A,
               const std::vector<std::uint8_t> &B, double Tolerance,
               std::int64_t &FirstBad) {
  unsigned Bytes = Type::scalar(T.Scalar).elementBytes();
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
    case ScalarKind::Half:
      X = halfValue(get<std::uint16_t>(A, I));
      Y = halfValue(get<std::uint16_t>(B, I));
      break;
    case ScalarKind::BFloat16:
      X = bfloat16Value(get<std::uint16_t>(A, I));
      Y = bfloat16Value(get<std::uint16_t>(B, I));
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

/// [["device", 0.21], ...]: VerifyResult::PhaseSeconds in order.
llvm::json::Array
phasesToJson(const std::vector<std::pair<std::string, double>> &Phases) {
  llvm::json::Array A;
  for (const auto &[Name, Seconds] : Phases)
    A.push_back(llvm::json::Array{Name, Seconds});
  return A;
}

/// What the child reports: the outcome and, for the texture variant, an
/// image that could not be made (then the fallback ran).
llvm::json::Value resultToJson(const VerifyResult &R) {
  // JSON has no infinity (a NaN where the other run has a number): the
  // largest double stands for it, which reads back as it.
  double Max = std::isfinite(R.MaxRelError) ? R.MaxRelError : DBL_MAX;
  return llvm::json::Object{{"outcome", int(R.Outcome)},
                            {"max", Max},
                            {"detail", R.Detail},
                            {"path", R.Path},
                            {"failed", R.FailedPrecondition},
                            {"race_check", R.RaceCheck},
                            {"times", llvm::json::Array(R.TimesMs)},
                            {"phases", phasesToJson(R.PhaseSeconds)}};
}

using Contents = std::vector<std::vector<std::uint8_t>>;

/// One side's launches on the session: the input's (Reference) or a
/// candidate's, over buffers holding the inputs. What it creates on the
/// device is released with it, so a run of many candidates holds one
/// candidate's buffers at a time.
class Execution {
public:
  Execution(DeviceSession &Session, const DeviceRun &Run,
            std::vector<Launch> Launches)
      : Session(Session), Run(Run), Launches(std::move(Launches)) {}
  Execution(const Execution &) = delete;
  Execution &operator=(const Execution &) = delete;
  ~Execution() {
    for (unsigned Object : Created)
      Session.release(Object);
  }

  /// The race records of the checked kernels (RaceCheck.h), zero at first;
  /// none where the candidate runs unchecked.
  std::map<std::string, unsigned> RaceRecords;
  /// The checked program where it runs some work-groups of each checked
  /// launch beside the candidate, which runs them all unchecked.
  std::optional<unsigned> SampledProgram;
  /// The buffers of the last execute(), which a timed run launches on.
  std::vector<unsigned> Buffers;

  const std::vector<Launch> &launches() const { return Launches; }

  /// A zeroed buffer for the race records of a checked kernel.
  llvm::Error addRaceRecord(const std::string &Kernel) {
    auto B = Session.createBuffer(
        std::vector<std::uint8_t>(RaceRecord::BufferWords * 4, 0));
    if (!B)
      return B.takeError();
    Created.push_back(*B);
    RaceRecords[Kernel] = *B;
    return llvm::Error::success();
  }

  /// Uploads the inputs, launches every launch of one side in order on one
  /// in-order queue (each sees the one before) and reads every buffer
  /// back; \p Ms (when given) receives the launches' device time.
  llvm::Expected<Contents> execute(unsigned Program, bool Reference,
                                   double *Ms = nullptr) {
    if (auto E = upload())
      return E;
    auto Took = launchAll(Program, Reference, Ms != nullptr);
    if (!Took)
      return Took.takeError();
    if (Ms)
      *Ms = *Took;
    Contents Out;
    for (unsigned B : Buffers) {
      auto Data = Session.readBuffer(B);
      if (!Data)
        return Data.takeError();
      Out.push_back(std::move(*Data));
    }
    return Out;
  }

  /// Every launch of one side over Buffers, in order; with \p Timed, the
  /// device time of the launches summed, in milliseconds.
  llvm::Expected<double> launchAll(unsigned Program, bool Reference,
                                   bool Timed);

private:
  /// Buffers holding the inputs, one per array parameter, in order (the
  /// last execution's released).
  llvm::Error upload() {
    for (unsigned B : Buffers) {
      Session.release(B);
      Created.erase(llvm::find(Created, B));
    }
    Buffers.clear();
    for (auto &[Name, View] : ImageOf) {
      Session.release(View);
      Created.erase(llvm::find(Created, View));
    }
    ImageOf.clear();
    for (size_t I = 0; I < Run.Params.size(); ++I) {
      if (!Run.Params[I].Ty.IsPointer)
        continue;
      auto B = Session.createBuffer((*Run.Inputs)[I]);
      if (!B)
        return B.takeError();
      Created.push_back(*B);
      Buffers.push_back(*B);
    }
    return llvm::Error::success();
  }

  DeviceSession &Session;
  const DeviceRun &Run;
  std::vector<Launch> Launches;
  std::map<std::string, unsigned> ImageOf; ///< texel views of the buffers
  std::vector<unsigned> Created;
};

llvm::Expected<double> Execution::launchAll(unsigned Program, bool Reference,
                                            bool Timed) {
  double Ms = 0;
  auto Go = [&](const std::string &Kernel, const std::vector<KernelArg> &A,
                const NDRange &Range) -> llvm::Error {
    if (!Timed)
      return Session.launch(Program, Kernel, A, Range);
    auto T = Session.launchTimed(Program, Kernel, A, Range);
    if (!T)
      return T.takeError();
    Ms += *T;
    return llvm::Error::success();
  };
  // CUDA: the __constant__ arrays, what cudaMemcpyToSymbol fills.
  size_t Passed =
      Run.Params.size() - Run.ConstantArrays + Run.constantArguments();
  for (size_t I = Passed; I < Run.Params.size(); ++I)
    if (auto E =
            Session.setGlobal(Program, Run.Params[I].Name, (*Run.Inputs)[I]))
      return E;
  for (const Launch &L : Launches) {
    // Args: the kernel's; Plain: the buffers where it takes images (the
    // input's arguments, for <name>_edge).
    std::vector<KernelArg> Args, Plain;
    size_t Buffer = 0;
    for (size_t I = 0; I < Passed; ++I) {
      const Param &P = Run.Params[I];
      if (!P.Ty.IsPointer) {
        Args.push_back(scalarArg(P.Ty, Run.Scalars[I], Run.Device));
        Plain.push_back(Args.back());
        continue;
      }
      unsigned B = Buffers[Buffer++];
      Plain.push_back(KernelArg::buffer(B));
      auto Img = Reference ? L.Images.end() : L.Images.find(P.Name);
      if (Img == L.Images.end()) {
        Args.push_back(KernelArg::buffer(B));
        continue;
      }
      if (!ImageOf.count(P.Name)) {
        unsigned Channels = L.Channels.at(P.Name);
        auto Image =
            Session.createTexelView(B, Img->second,
                                    std::size_t(std::max<std::int64_t>(
                                        1, Run.Extents.at(P.Name) / Channels)),
                                    Channels);
        if (!Image)
          return Image.takeError();
        Created.push_back(*Image);
        ImageOf[P.Name] = *Image;
      }
      Args.push_back(KernelArg::buffer(ImageOf[P.Name]));
    }
    auto Named = [&](const std::string &K) {
      const auto &Names = Reference ? Run.ReferenceNames : Run.CandidateNames;
      auto It = Names.find(K);
      return It == Names.end() ? K : It->second;
    };
    // The checks run with the verify run; a timed run runs alone (a
    // --tune candidate is never checked whole, RaceCheckRun.h).
    if (auto R = RaceRecords.find(L.Candidate);
        !Reference && !Timed && R != RaceRecords.end()) {
      auto Groups = *workGroups(L.CandidateRange);
      if (!SampledProgram) {
        Args.push_back(KernelArg::buffer(R->second));
        for (std::int32_t V : RaceRecord::groupArguments({0, 0, 0}, Groups))
          Args.push_back(KernelArg::i32(V));
      } else if (auto E = checkSomeWorkGroups(Session, *SampledProgram,
                                              Named(L.Candidate), Args, Buffers,
                                              R->second, L.CandidateRange))
        return E;
    }
    if (auto E = Go(Named(Reference ? L.Naive : L.Candidate), Args,
                    Reference ? L.NaiveRange : L.CandidateRange))
      return E;
    if (Reference)
      continue;
    for (const Launch::Edge &Edge : L.Edges) {
      auto Own = Plain.end() - std::ptrdiff_t(Run.constantArguments());
      std::vector<KernelArg> EdgeArgs(Plain.begin(), Own);
      for (std::int64_t B : Edge.Bounds)
        EdgeArgs.push_back(KernelArg::i32(std::int32_t(B)));
      EdgeArgs.insert(EdgeArgs.end(), Own, Plain.end());
      if (auto E = Go(Named(edgeName(L.Naive)), EdgeArgs, Edge.Range))
        return E;
    }
  }
  return Ms;
}

/// The reference's build and results, which every candidate of a run is
/// compared with.
struct ReferenceResults {
  const DeviceRun &Run;
  unsigned Program;
  Contents Expected;
  double Ms = 0; ///< its launches' device time
};

/// Sends \p E as `error <json string>`.
void sendError(SendFn Send, llvm::Error E) {
  // One line: the message (a build log, say) as a JSON string.
  std::string Line;
  llvm::raw_string_ostream OS(Line);
  OS << llvm::json::Value(llvm::toString(std::move(E)));
  Send("error " + OS.str() + "\n");
}

/// \p Run's launches as the device can run them: the texture variant reads
/// its read-only float/int arrays as images or texture objects over the
/// buffers, made as the launchers make them (Launcher.h); where one would
/// exceed the device's limit the naive kernel runs instead, and \p Result
/// says so.
std::vector<Launch> launchesWithinLimits(DeviceSession &Session,
                                         const DeviceRun &Run,
                                         VerifyResult &Result) {
  std::vector<Launch> Launches = Run.Launches;
  for (Launch &L : Launches)
    for (auto &[A, Channel] : L.Images) {
      std::size_t Width = std::size_t(
          std::max<std::int64_t>(1, Run.Extents.at(A) / L.Channels.at(A)));
      if (Width <= Session.maxTexelViewWidth())
        continue;
      Result.Path = "fallback";
      if (Result.FailedPrecondition.empty())
        Result.FailedPrecondition = llvm::formatv(
            "'{0}' needs {1} of {2} elements, over the device's {3} ({4})", A,
            Run.Device == DeviceKind::Cuda ? "a texture" : "an image", Width,
            Session.maxTexelViewWidth(),
            Run.Device == DeviceKind::Cuda ? "maxTexture1DLinear"
                                           : "CL_DEVICE_IMAGE_MAX_BUFFER_SIZE");
      L.Candidate = L.Fallback;
      L.CandidateRange = L.NaiveRange;
      L.Images.clear();
      L.Edges.clear();
      break;
    }
  return Launches;
}

/// How much of \p Candidate runs race-checked. The checked kernel runs
/// unoptimized, a call per shared access: where the input took long, the
/// candidate runs unchecked, and some of the work-groups of each checked
/// launch run checked beside it, where their share of the input's time is
/// small enough (RaceCheck.h).
RaceCheckPlan planRaceChecks(const DeviceRun &Run, const Execution &Candidate,
                             const ReferenceResults &Ref,
                             VerifyResult &Result) {
  if (Run.CheckedCandidate.empty())
    return RaceCheckPlan::None;
  RaceCheckInputs In;
  for (const Launch &L : Candidate.launches())
    if (Run.RaceChecked.count(L.Candidate))
      In.CheckedLaunches.push_back(L.CandidateRange);
  In.ReferenceSeconds = Ref.Ms / 1000;
  In.Timed = Run.TimedRuns > 0;
  In.NotSampled = Run.NotSampled;
  return planRaceCheck(In, Result.RaceCheck);
}

/// Builds the candidate's program, race-checked where \p Checked, into
/// \p Programs. The race checks' code takes PoCL's optimizer minutes
/// (RaceCheck.h).
llvm::Expected<unsigned> buildCandidate(DeviceSession &Session,
                                        const DeviceRun &Run, bool Checked,
                                        std::vector<unsigned> &Programs) {
  const char *As = Run.Device == DeviceKind::Cuda ? "CUDA (NVRTC)" : "OpenCL";
  auto P = Session.buildProgram(Checked ? Run.CheckedCandidate : Run.Candidate,
                                Checked ? Run.BuildOptions + " -cl-opt-disable"
                                        : Run.BuildOptions,
                                Run.CandidateKernels);
  if (!P)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the emitted kernel does not build as {0} (a gpumerge "
                      "bug): {1}",
                      As, llvm::toString(P.takeError()))
            .str());
  Programs.push_back(*P);
  return P;
}

/// Compares the candidate's results \p Actual with the reference's into
/// \p Result: a mismatch at the first array that differs.
void compareResults(const DeviceRun &Run, const ReferenceResults &Ref,
                    const Contents &Actual, VerifyResult &Result) {
  Result.Outcome = VerifyResult::Status::Ok;
  size_t BufferIndex = 0;
  for (const Param &P : Run.Params) {
    if (!P.Ty.IsPointer)
      continue;
    Type T = P.Ty.element();
    double Tolerance = verifyTolerance(T, Result.ReassociatedTerms);
    std::int64_t FirstBad;
    double E = compare(T, Ref.Expected[BufferIndex], Actual[BufferIndex],
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
}

/// A mismatch is the emitted kernel's fault only if the input computes one
/// result: runs it again (an uninitialized local it reads, or threads that
/// race, give another), and where its result differs, \p Result is skipped.
llvm::Error recheckInput(DeviceSession &Session, const DeviceRun &Run,
                         const ReferenceResults &Ref, VerifyResult &Result) {
  Execution Input(Session, Ref.Run, Ref.Run.Launches);
  auto Again = Input.execute(Ref.Program, true);
  if (!Again)
    return Again.takeError();
  // --debug-fail=verify-candidate=unstable-input (tests): the second run
  // differs, as an input's undefined result would.
  if (Run.DebugFail == "unstable-input" && !Again->empty() &&
      !Again->front().empty())
    Again->front()[0] ^= 1;
  size_t Index = 0;
  for (const Param &P : Run.Params) {
    if (!P.Ty.IsPointer)
      continue;
    std::int64_t FirstBad;
    compare(P.Ty.element(), Ref.Expected[Index], (*Again)[Index], 0, FirstBad);
    ++Index;
    if (FirstBad < 0)
      continue;
    Result.Outcome = VerifyResult::Status::Skipped;
    Result.Detail =
        llvm::formatv("two runs of the input kernel gave two results ('{0}' "
                      "differs first at element {1}): it reads a value "
                      "nothing set, or its threads race, so its result is "
                      "not defined",
                      P.Name, FirstBad)
            .str();
    break;
  }
  return llvm::Error::success();
}

/// A race is wrong code even where PoCL's order computed the right values:
/// the first race \p Candidate's race records hold makes \p Result a
/// mismatch.
llvm::Error checkRaces(DeviceSession &Session, const DeviceRun &Run,
                       const Execution &Candidate, VerifyResult &Result) {
  for (const auto &[Kernel, B] : Candidate.RaceRecords) {
    auto Data = Session.readBuffer(B);
    if (!Data)
      return Data.takeError();
    std::vector<std::uint32_t> Words(RaceRecord::BufferWords);
    std::memcpy(Words.data(), Data->data(),
                std::min(Data->size(), Words.size() * 4));
    std::vector<std::uint32_t> Record = RaceRecord::firstRace(Words);
    std::array<std::size_t, 2> Local = {0, 0};
    for (const Launch &L : Candidate.launches())
      if (L.Candidate == Kernel)
        Local = {L.CandidateRange.Local[0], L.CandidateRange.Local[1]};
    std::string Race =
        RaceRecord::describe(Kernel, Run.RaceChecked.at(Kernel), Record, Local);
    if (Race.empty())
      continue;
    Result.Outcome = VerifyResult::Status::Mismatch;
    Result.Detail = Result.Detail.empty() ? Race : Race + "; " + Result.Detail;
    break;
  }
  return llvm::Error::success();
}

/// Sends \p Result (`result <json>`).
void sendResult(const VerifyResult &Result, SendFn Send) {
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  OS << resultToJson(Result);
  Send("result " + OS.str() + "\n");
}

/// Runs one candidate against \p Ref and sends its result; false where it
/// sent an error instead (the run must end). \p Result's phases get this
/// candidate's, timed from \p LapStart.
bool runCandidate(DeviceSession &Session, const DeviceRun &Run,
                  const ReferenceResults &Ref, VerifyResult Result,
                  std::chrono::steady_clock::time_point LapStart, SendFn Send) {
  auto Lap = [&](const char *Phase) {
    auto Now = std::chrono::steady_clock::now();
    Result.PhaseSeconds.push_back(
        {Phase, std::chrono::duration<double>(Now - LapStart).count()});
    LapStart = Now;
  };
  auto Fail = [&](llvm::Error E) {
    sendError(Send, std::move(E));
    return false;
  };

  Execution Candidate(Session, Run, launchesWithinLimits(Session, Run, Result));
  RaceCheckPlan Plan = planRaceChecks(Run, Candidate, Ref, Result);
  if (Plan != RaceCheckPlan::None)
    for (const auto &Checked : Run.RaceChecked)
      if (auto E = Candidate.addRaceRecord(Checked.first))
        return Fail(std::move(E));
  std::vector<unsigned> Programs;
  // The candidate's programs go with it.
  struct Unload {
    DeviceSession &Session;
    std::vector<unsigned> &Programs;
    ~Unload() {
      for (unsigned P : Programs)
        Session.releaseProgram(P);
    }
  } Unloading{Session, Programs};
  auto CandProgram =
      buildCandidate(Session, Run, Plan == RaceCheckPlan::All, Programs);
  if (!CandProgram)
    return Fail(CandProgram.takeError());
  if (Plan == RaceCheckPlan::Some) {
    auto Checking = buildCandidate(Session, Run, true, Programs);
    if (!Checking)
      return Fail(Checking.takeError());
    Candidate.SampledProgram = *Checking;
  }
  Lap("candidate build");
  if (Run.DebugFail == "crash")
    std::raise(SIGSEGV);
  while (Run.DebugFail == "hang")
    ::pause();
  auto Actual = Candidate.execute(*CandProgram, false);
  if (!Actual)
    return Fail(Actual.takeError());
  Send("candidate-ran\n");
  Lap("candidate run");

  compareResults(Run, Ref, *Actual, Result);
  if (Result.Outcome == VerifyResult::Status::Mismatch)
    if (auto E = recheckInput(Session, Run, Ref, Result))
      return Fail(std::move(E));
  if (auto E = checkRaces(Session, Run, Candidate, Result))
    return Fail(std::move(E));
  Lap("compare");
  // --tune: the candidate as its launcher runs it, timed on the device
  // once it matched and only where the optimized path ran. The verify run
  // above was the warm-up; each timed run launches on its own results.
  if (Run.TimedRuns && Result.Outcome == VerifyResult::Status::Ok &&
      Result.Path != "fallback") {
    for (unsigned I = 0; I < Run.TimedRuns; ++I) {
      auto Ms = Candidate.launchAll(*CandProgram, false, true);
      if (!Ms)
        return Fail(Ms.takeError());
      Result.TimesMs.push_back(*Ms);
    }
    Lap("timed runs");
  }
  sendResult(Result, Send);
  return true;
}

} // namespace

KernelArg scalarArg(const Type &T, double Value, DeviceKind Device) {
  // A vector (float4 wt): lanes that differ, Value, Value + 1/4, ... (+ 1
  // for integers); OpenCL's 3-vectors take four.
  if (T.VectorWidth > 1) {
    KernelArg A = scalarArg(T.lane(), Value);
    double Step = T.isFloating() ? 0.25 : 1;
    for (unsigned K = 1; K < T.lanes(); ++K) {
      KernelArg L = scalarArg(T.lane(), Value + K * Step);
      A.Bytes.insert(A.Bytes.end(), L.Bytes.begin(), L.Bytes.end());
    }
    return A;
  }
  auto Bytes = [](auto V) {
    KernelArg A;
    A.Bytes.resize(sizeof(V));
    std::memcpy(A.Bytes.data(), &V, sizeof(V));
    return A;
  };
  switch (T.Scalar) {
  case ScalarKind::Float:
    return KernelArg::f32(float(Value));
  case ScalarKind::Half:
  case ScalarKind::BFloat16: {
    float F = roundToHalfPrecision(T.Scalar, float(Value));
    if (Device == DeviceKind::OpenCL)
      return KernelArg::f32(F);
    return Bytes(T.Scalar == ScalarKind::Half ? halfBits(F) : bfloat16Bits(F));
  }
  case ScalarKind::Double:
    return KernelArg::f64(Value);
  case ScalarKind::Long:
  case ScalarKind::ULong:
    return KernelArg::i64(std::int64_t(Value));
  case ScalarKind::UInt:
    return KernelArg::u32(std::uint32_t(Value));
  case ScalarKind::Short:
  case ScalarKind::UShort:
    return Bytes(std::int16_t(Value));
  case ScalarKind::Char:
  case ScalarKind::UChar:
  case ScalarKind::Bool:
    return Bytes(std::int8_t(Value));
  default:
    return KernelArg::i32(std::int32_t(Value));
  }
}

bool sameReference(const DeviceRun &A, const DeviceRun &B) {
  if (A.Device != B.Device || A.DeviceIndex != B.DeviceIndex ||
      A.Reference != B.Reference || A.BuildOptions != B.BuildOptions ||
      A.ReferenceKernels != B.ReferenceKernels ||
      A.ReferenceNames != B.ReferenceNames ||
      A.CollisionCheck != B.CollisionCheck ||
      A.CollisionChecked != B.CollisionChecked ||
      A.ConstantArrays != B.ConstantArrays || A.Extents != B.Extents ||
      A.Scalars != B.Scalars || A.Params.size() != B.Params.size() ||
      A.Launches.size() != B.Launches.size() || !A.Inputs || !B.Inputs ||
      (A.Inputs != B.Inputs && *A.Inputs != *B.Inputs))
    return false;
  for (size_t I = 0; I < A.Params.size(); ++I)
    if (A.Params[I].Name != B.Params[I].Name ||
        !(A.Params[I].Ty == B.Params[I].Ty))
      return false;
  for (size_t I = 0; I < A.Launches.size(); ++I) {
    const NDRange &X = A.Launches[I].NaiveRange, &Y = B.Launches[I].NaiveRange;
    if (A.Launches[I].Naive != B.Launches[I].Naive || X.Dims != Y.Dims ||
        X.Global != Y.Global || X.Local != Y.Local)
      return false;
  }
  return true;
}

llvm::Expected<std::unique_ptr<DeviceSession>> openSession(DeviceKind Kind,
                                                           unsigned Index) {
  if (Kind == DeviceKind::Cuda) {
    auto S = CudaSession::create(Index);
    if (!S)
      return S.takeError();
    return std::unique_ptr<DeviceSession>(std::move(*S));
  }
  auto S = OpenCLSession::create();
  if (!S)
    return S.takeError();
  return std::unique_ptr<DeviceSession>(std::move(*S));
}

void executeOnDevice(llvm::ArrayRef<const DeviceRun *> Runs,
                     llvm::ArrayRef<VerifyResult> Results, SendFn Send) {
  const DeviceRun &First = *Runs.front();
  // Each phase's wall time, from the end of the one before: the shared ones
  // go to the first candidate's.
  std::vector<std::pair<std::string, double>> Shared;
  auto LapStart = std::chrono::steady_clock::now();
  auto Lap = [&](const char *Phase) {
    auto Now = std::chrono::steady_clock::now();
    Shared.push_back(
        {Phase, std::chrono::duration<double>(Now - LapStart).count()});
    LapStart = Now;
  };
  auto Session = openSession(First.Device, First.DeviceIndex);
  if (!Session)
    return sendError(Send, Session.takeError());
  Lap("device");
  // CUDA compiles the candidates' programs on other threads while the input
  // builds and runs, and each candidate while the ones before it run.
  std::vector<DeviceSession::BuildRequest> Ahead;
  for (const DeviceRun *Run : Runs)
    Ahead.push_back({Run->Candidate, Run->BuildOptions, Run->CandidateKernels});
  (*Session)->expectBuilds(Ahead);
  const char *As = First.Device == DeviceKind::Cuda ? "CUDA (NVRTC)" : "OpenCL";
  auto RefProgram = (*Session)->buildProgram(
      First.Reference, First.BuildOptions, First.ReferenceKernels);
  if (!RefProgram) {
    Send("input-build-failed\n");
    return sendError(
        Send,
        llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv(First.ReferencePrinted
                              ? "the input kernel, printed as {0} by "
                                "gpumerge, does not build (a gpumerge limit "
                                "or bug): {1}"
                              : "the input kernel does not build as {0}: {1}",
                          As, llvm::toString(RefProgram.takeError()))
                .str()));
  }
  Lap("reference build");

  // A kernel that faults must end this process at once: the handlers that
  // the libraries installed (LLVM's crash recovery, inherited from
  // gpumerge; the OpenCL compiler's) would report, retry or swallow it.
  for (int Signal : {SIGSEGV, SIGBUS, SIGILL, SIGABRT})
    std::signal(Signal, SIG_DFL);

  ReferenceResults Ref{First, *RefProgram, {}, 0};
  auto Started = std::chrono::steady_clock::now();
  {
    // The input's launches timed on the device (its build excluded): how
    // long the checked candidate may take (RaceCheck.h).
    Execution Input(**Session, First, First.Launches);
    auto Expected = Input.execute(Ref.Program, true, &Ref.Ms);
    if (!Expected)
      return sendError(Send, Expected.takeError());
    Ref.Expected = std::move(*Expected);
  }
  // Where the input's writes collide, its result depends on the order of
  // its work-items: no candidate can be compared with it. (A check that
  // cannot build or run leaves the run as it would be without it.)
  std::string Collision;
  if (!First.CollisionChecked.empty()) {
    if (auto C = findWriteCollision(**Session, First))
      Collision = std::move(*C);
    else
      llvm::consumeError(C.takeError());
  }
  Lap("reference run");
  Send(llvm::formatv("reference-ran {0}\n",
                     std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Started)
                         .count())
           .str());
  for (size_t I = 0; I < Runs.size(); ++I) {
    Send(llvm::formatv("candidate {0}\n", I).str());
    VerifyResult Result = Results[I];
    if (I == 0)
      Result.PhaseSeconds = Shared;
    if (!Collision.empty()) {
      Result.Outcome = VerifyResult::Status::Skipped;
      Result.Detail = "the input's writes collide: " + Collision +
                      ", so its result depends on the order they run in";
      sendResult(Result, Send);
      continue;
    }
    if (!runCandidate(**Session, *Runs[I], Ref, Result,
                      std::chrono::steady_clock::now(), Send))
      return;
  }
}

bool readResult(llvm::StringRef Json, VerifyResult &Into) {
  auto J = llvm::json::parse(Json);
  const llvm::json::Object *O = J ? J->getAsObject() : nullptr;
  if (!O) {
    if (!J)
      llvm::consumeError(J.takeError());
    return false;
  }
  Into.Outcome = VerifyResult::Status(O->getInteger("outcome").value_or(2));
  Into.MaxRelError = O->getNumber("max").value_or(0);
  Into.Detail = O->getString("detail").value_or("").str();
  Into.Path = O->getString("path").value_or("").str();
  Into.FailedPrecondition = O->getString("failed").value_or("").str();
  Into.RaceCheck = O->getString("race_check").value_or("").str();
  if (const llvm::json::Array *Times = O->getArray("times"))
    for (const llvm::json::Value &T : *Times)
      if (auto Ms = T.getAsNumber())
        Into.TimesMs.push_back(*Ms);
  if (const llvm::json::Array *Phases = O->getArray("phases"))
    for (const llvm::json::Value &P : *Phases) {
      const llvm::json::Array *Pair = P.getAsArray();
      if (!Pair || Pair->size() != 2 || !(*Pair)[0].getAsString() ||
          !(*Pair)[1].getAsNumber())
        continue;
      Into.PhaseSeconds.push_back(
          {(*Pair)[0].getAsString()->str(), *(*Pair)[1].getAsNumber()});
    }
  return true;
}

} // namespace gpumerge

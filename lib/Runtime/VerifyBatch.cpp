//===- VerifyBatch.cpp - Prepared verify runs, run in a child -------------===//
#include "Runtime/VerifyBatch.h"
#include "Runtime/Isolate.h"
#include "Runtime/VerifyPrograms.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <cmath>

namespace gpumerge {

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

void runPrepared(const Module &M, llvm::ArrayRef<PreparedRun *> Batch,
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

} // namespace gpumerge

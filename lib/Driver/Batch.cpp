//===- Batch.cpp - gpumerge over a tree of files --------------------------===//
#include "Driver/Batch.h"
#include "Driver/BatchInputs.h"
#include "Driver/BatchSummary.h"
#include "Runtime/Isolate.h"
#include "Target/MachineDescription.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace gpumerge {

bool isBatch(const DriverOptions &Opts) { return isBatchRequest(Opts); }

namespace {

/// Runs one file of the batch into \p R: its own options (output directory,
/// the database's flags), its own streams.
void runOne(const DriverOptions &Opts, const MachineDescription &MD,
            const BatchFile &F, FileOutcome &R) {
  R.Path = F.Path;
  if (!F.Refused.empty()) {
    R.Exit = ExitUsage;
    R.Refused = F.Refused;
    R.ErrText = F.Path + ": error: not run: " + F.Refused + "\n";
    return;
  }
  DriverOptions FO = Opts;
  FO.Inputs = {F.Path};
  FO.OutDir = F.OutDir;
  FO.CompileCommands.clear();
  FO.FileGlobs.clear();
  // The database's flags first: those after `--` come later and win.
  FO.ClangArgs = F.ClangArgs;
  FO.ClangArgs.insert(FO.ClangArgs.end(), Opts.ClangArgs.begin(),
                      Opts.ClangArgs.end());
  if (!Opts.EmitSteps.empty()) {
    // Step files are named by kernel: one directory per file keeps two
    // files' kernels of one name apart.
    llvm::SmallString<256> Steps(Opts.EmitSteps);
    llvm::sys::path::append(Steps, F.Relative);
    FO.EmitSteps = std::string(Steps);
  }
  llvm::json::Array Report;
  llvm::raw_string_ostream Out(R.OutText), Err(R.ErrText);
  // --analyze names kernels by line only: in a batch, say whose.
  if (Opts.Analyze && !Opts.JsonReport)
    Out << "file " << F.Path << "\n";
  R.Exit = runFile(FO, MD, F.Path, Report, Out, Err);
  Out.flush();
  Err.flush();
  if (!Report.empty())
    if (llvm::json::Object *O = Report.front().getAsObject())
      R.Report = std::move(*O);
}

/// Prints the files' messages in the files' order as they come in, and a
/// progress line under them on a terminal.
class OrderedPrinter {
public:
  OrderedPrinter(size_t Total, llvm::raw_ostream &Out, llvm::raw_ostream &Err)
      : Total(Total), Out(Out), Err(Err),
        Progress(llvm::sys::Process::StandardErrIsDisplayed()) {}

  /// Prints \p R's messages; the progress line then counts \p Finished
  /// files, \p Last the latest of them.
  void print(const FileOutcome &R, size_t Finished, llvm::StringRef Last) {
    // A worker may be forking for --verify: the streams are flushed there.
    std::lock_guard<std::mutex> Lock(streamsAndForkMutex());
    clearProgress();
    Err << R.ErrText;
    Out << R.OutText;
    Out.flush();
    showProgress(Finished, Last);
  }

  void progress(size_t Finished, llvm::StringRef Last) {
    if (!Progress)
      return;
    std::lock_guard<std::mutex> Lock(streamsAndForkMutex());
    clearProgress();
    showProgress(Finished, Last);
  }

  void done() {
    std::lock_guard<std::mutex> Lock(streamsAndForkMutex());
    clearProgress();
  }

private:
  size_t Total;
  llvm::raw_ostream &Out, &Err;
  bool Progress;
  bool Shown = false;

  void clearProgress() {
    if (Shown)
      Err << "\r\x1b[K";
    Shown = false;
  }
  void showProgress(size_t Finished, llvm::StringRef Last) {
    if (!Progress || Finished >= Total)
      return;
    Err << llvm::formatv("[{0}/{1}] {2}", Finished, Total, Last);
    Shown = true;
  }
};

} // namespace

int runBatch(const DriverOptions &Opts, const MachineDescription &MD,
             llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  if (!Opts.Output.empty()) {
    Err << "error: -o names one file, and a batch writes a tree: use "
           "--out-dir=DIR\n";
    return ExitUsage;
  }
  if (!Opts.Reference.empty()) {
    Err << "error: --reference is the reference of one input file: run that "
           "file on its own\n";
    return ExitUsage;
  }
  auto Start = std::chrono::steady_clock::now();
  auto Inputs = collectBatchInputs(Opts);
  if (!Inputs) {
    Err << "error: " << llvm::toString(Inputs.takeError()) << "\n";
    return ExitUsage;
  }
  const std::vector<BatchFile> &Files = Inputs->Files;
  size_t N = Files.size();
  unsigned Workers = Opts.Jobs
                         ? Opts.Jobs
                         : llvm::hardware_concurrency().compute_thread_count();
  Workers = std::max<unsigned>(1, std::min<size_t>(Workers, N));
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's ASan runtime has no fork handler: a verify child forked while
  // another worker holds the sanitizer allocator's lock hangs on its first
  // allocation (seen once in batch.test, stopped by the time limit). The
  // sanitized build verifies and tunes file by file; the release build
  // keeps its workers (glibc's malloc is safe across fork).
  if (Opts.Verify || Opts.Tune)
    Workers = 1;
#endif

  std::vector<FileOutcome> Results(N);
  OrderedPrinter Printer(N, Out, Err);
  if (Workers == 1) {
    // No thread at all: -j 1 runs as gpumerge always ran, file by file.
    for (size_t I = 0; I < N; ++I) {
      Printer.progress(I, Files[I].Path);
      runOne(Opts, MD, Files[I], Results[I]);
      Printer.print(Results[I], I + 1, Files[I].Path);
    }
  } else {
    std::mutex M;
    std::condition_variable Changed;
    std::vector<bool> Done(N, false);
    size_t Finished = 0;
    std::string LastDone;
    llvm::ThreadPool Pool(llvm::hardware_concurrency(Workers));
    for (size_t I = 0; I < N; ++I)
      Pool.async([&, I] {
        runOne(Opts, MD, Files[I], Results[I]);
        {
          std::lock_guard<std::mutex> Lock(M);
          Done[I] = true;
          ++Finished;
          LastDone = Files[I].Path;
        }
        Changed.notify_all();
      });
    // Files are printed in their order; a later file that finishes first
    // waits for the ones before it.
    for (size_t Next = 0; Next < N; ++Next) {
      size_t Seen = 0;
      for (;;) {
        std::unique_lock<std::mutex> Lock(M);
        Changed.wait(Lock, [&] { return Done[Next] || Finished != Seen; });
        Seen = Finished;
        std::string Last = LastDone;
        bool Ready = Done[Next];
        Lock.unlock();
        if (Ready) {
          Printer.print(Results[Next], Seen, Last);
          break;
        }
        Printer.progress(Seen, Last);
      }
    }
    Pool.wait();
  }
  Printer.done();

  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  int Worst = ExitOk;
  for (const FileOutcome &R : Results)
    Worst = worseExit(Worst, R.Exit);
  if (N == 0) {
    Err << "error: the batch found no file with a kernel to take\n";
    Worst = ExitBadInput;
  }
  BatchTally Tally = tallyBatch(Results, Inputs->Left);
  printBatchSummary(Tally, Seconds, Workers, Err);

  if (Opts.JsonReport) {
    llvm::json::Array FilesJson;
    for (FileOutcome &R : Results) {
      llvm::json::Object O;
      if (R.Report) {
        O = std::move(*R.Report);
        R.Report.reset();
      } else {
        O["file"] = R.Path;
        O["status"] = R.Refused.empty() ? "error" : "refused";
        if (!R.Refused.empty())
          O["reason"] = R.Refused;
        else
          O["messages"] = R.ErrText;
      }
      O["exit_code"] = R.Exit;
      FilesJson.push_back(std::move(O));
    }
    llvm::json::Array LeftJson;
    for (const NotTaken &L : Inputs->Left)
      LeftJson.push_back(
          llvm::json::Object{{"file", L.Path}, {"reason", L.Why}});
    llvm::json::Object Report{
        {"target", MD.Name},
        {"files", std::move(FilesJson)},
        {"not_taken", std::move(LeftJson)},
        {"summary", batchSummaryJson(Tally, Seconds, Workers)},
        {"exit_code", Worst}};
    Out << llvm::formatv("{0:2}", llvm::json::Value(std::move(Report))) << "\n";
  }
  return Worst;
}

} // namespace gpumerge

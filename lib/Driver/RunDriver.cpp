//===- RunDriver.cpp - The gpumerge command: options, then files ----------===//
//
// runDriver checks the options, loads the target and resolves --device, then
// runs a batch (Batch.h) or each input file (runFile, Driver.cpp) and prints
// the JSON report. A batch runs its files through runFile; only runDriver,
// above both, starts a batch, so Driver.cpp does not include Batch.h.
//
//===----------------------------------------------------------------------===//
#include "Driver/Batch.h"
#include "Driver/Driver.h"
#include "Pipeline/InputRewrites.h"
#include "Runtime/CudaSession.h"
#include "Target/MachineDescription.h"
#include "Transforms/PassRegistry.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace gpumerge {

/// --device, resolved into \p Opts (CudaDevice, DeviceNote): 0, or the
/// exit code of why the device cannot be used. CUDA is asked in a child
/// process (CudaSession::probe), and only where kernels will run.
static int resolveDevice(DriverOptions &Opts, llvm::raw_ostream &Err) {
  llvm::StringRef D(Opts.Device);
  if (D == "opencl" || D == "opencl:0")
    return ExitOk;
  bool Runs = Opts.Verify || (Opts.Tune && !Opts.Analyze);
  if (D == "auto") {
    if (!Runs)
      return ExitOk;
    if (!Opts.Reference.empty()) {
      Opts.DeviceNote = "opencl (--reference is an OpenCL kernel)";
      return ExitOk;
    }
    auto Info = CudaSession::probe(0);
    if (Info) {
      Opts.CudaDevice = 0;
      Opts.DeviceNote = "cuda:0 (" + Info->Name + ")";
    } else {
      Opts.DeviceNote =
          "opencl (--device=auto: " + llvm::toString(Info.takeError()) + ")";
    }
    return ExitOk;
  }
  unsigned Index = 0;
  if (D.consume_front("cuda") &&
      (D.empty() || (D.consume_front(":") && !D.getAsInteger(10, Index)))) {
    if (!Opts.Reference.empty()) {
      Err << "error: --reference is an OpenCL kernel, which runs with "
             "--device=opencl, not --device="
          << Opts.Device << "\n";
      return ExitUsage;
    }
    auto Info = CudaSession::probe(Index);
    if (!Info) {
      Err << "error: --device=" << Opts.Device << ": "
          << llvm::toString(Info.takeError()) << "\n";
      return ExitBadInput;
    }
    Opts.CudaDevice = Index;
    Opts.CudaDeviceNamed = true;
    Opts.DeviceNote = "cuda:" + std::to_string(Index) + " (" + Info->Name + ")";
    return ExitOk;
  }
  Err << "error: --device must be auto, opencl or cuda[:N] (opencl:N with "
         "N > 0 is not supported: the first OpenCL device is used), got '"
      << Opts.Device << "'\n";
  return ExitUsage;
}

int runDriver(const DriverOptions &Given, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err) {
  DriverOptions Opts = Given; // with the device resolved
  if (Opts.Inputs.empty() && Opts.CompileCommands.empty()) {
    Err << "error: no input file\n";
    return ExitUsage;
  }
  if (Opts.Memory != "global" && Opts.Memory != "texture" &&
      Opts.Memory != "both") {
    Err << "error: --memory must be global, texture or both\n";
    return ExitUsage;
  }
  if (!Opts.Texture.empty() && Opts.Texture != "object" &&
      Opts.Texture != "ldg" && Opts.Texture != "restrict") {
    Err << "error: --texture must be object, ldg or restrict\n";
    return ExitUsage;
  }
  if (!Opts.Reference.empty()) {
    if (!Opts.Verify) {
      Err << "error: --reference is a reference for --verify\n";
      return ExitUsage;
    }
    if (!llvm::sys::fs::exists(Opts.Reference)) {
      Err << "error: cannot read the reference '" << Opts.Reference << "'\n";
      return ExitBadInput;
    }
  }
  if (!Opts.Output.empty() && !isBatch(Opts) &&
      (Opts.Memory == "both" || Opts.Inputs.size() > 1)) {
    Err << "error: -o names one file: use it with one input and "
           "--memory=global or --memory=texture (or use --out-dir)\n";
    return ExitUsage;
  }
  if (Opts.Target.empty()) {
    Err << "error: no target: give --target=NAME (see --list-targets)\n";
    return ExitUsage;
  }
  auto MD = loadTarget(Opts.Target, defaultTargetsDir());
  if (!MD) {
    Err << "error: " << llvm::toString(MD.takeError()) << "\n";
    return ExitBadInput;
  }
  if (!Opts.Merge.empty()) {
    if (auto R = parseMergeRequest(Opts.Merge); !R) {
      Err << "error: " << llvm::toString(R.takeError()) << "\n";
      return ExitUsage;
    }
  }
  if (Opts.Tune && !Opts.Merge.empty()) {
    Err << "error: --tune chooses the merge factors; --merge forces them: "
           "give one of the two\n";
    return ExitUsage;
  }
  if ((Opts.Tune || !Opts.TuneCache.empty()) && Opts.Analyze) {
    Err << "error: --tune and --tune-cache choose versions, which --analyze "
           "does not make\n";
    return ExitUsage;
  }
  if (int Code = resolveDevice(Opts, Err))
    return Code;
  if (Opts.Tune && Opts.Sizes.empty())
    Err << "warning: --tune without --size times the kernels at verify's "
           "small default sizes; give the sizes your program runs\n";
  if (Opts.Passes) {
    if (auto P = parsePipeline(*Opts.Passes); !P) {
      Err << "error: " << llvm::toString(P.takeError()) << "\n";
      return ExitUsage;
    }
  }
  // The input rewrites (global-barrier, grid-stride) run before any
  // pipeline, --passes' too: --disable-passes may leave them out of both.
  if (Opts.Passes && !llvm::all_of(Opts.DisabledPasses, isInputRewrite)) {
    Err << "error: --passes names the pipeline; --disable-passes leaves "
           "passes out of the default one: give one of the two\n";
    return ExitUsage;
  }
  for (const std::string &Name : Opts.DisabledPasses)
    if (isInputRewrite(Name))
      continue;
    else if (auto P = parsePipeline(Name); !P) {
      Err << "error: --disable-passes: " << llvm::toString(P.takeError())
          << "\n";
      return ExitUsage;
    }
  // A crash in a pass or the parse costs that pass or file (Driver.cpp's
  // FileJob), not the run.
  llvm::CrashRecoveryContext::Enable();
  if (isBatch(Opts))
    return runBatch(Opts, *MD, Out, Err);
  llvm::json::Array Files;
  int Worst = ExitOk;
  for (const std::string &In : Opts.Inputs) {
    int Code = runFile(Opts, *MD, In, Files, Out, Err);
    Worst = worseExit(Worst, Code);
  }
  if (Opts.JsonReport) {
    llvm::json::Object Report{{"target", MD->Name},
                              {"files", std::move(Files)}};
    // One file: its object at top level with "kernels" (docs/cli.md).
    llvm::json::Array &Fs = *Report.getArray("files");
    if (Fs.size() == 1)
      Out << llvm::formatv("{0:2}", Fs[0]) << "\n";
    else
      Out << llvm::formatv("{0:2}", llvm::json::Value(std::move(Report)))
          << "\n";
  }
  return Worst;
}

} // namespace gpumerge

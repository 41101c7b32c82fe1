//===- Driver.h - What the gpumerge command does ----------------*- C++ -*-===//
//
// The CLI parses options into DriverOptions and calls runDriver; everything
// else (parse, analyze, transform, emit, verify, report, write files) is here
// so tests link the same code. Exit codes (docs/cli.md): 0 success, 1 bad
// input, 2 bad usage, 3 --verify found a mismatch, 4 internal error.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_DRIVER_DRIVER_H
#define GPUMERGE_DRIVER_DRIVER_H

#include "Analysis/Domain.h"
#include "IR/Kernel.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>

namespace gpumerge {

enum ExitCode {
  ExitOk = 0,
  ExitBadInput = 1,
  ExitUsage = 2,
  ExitMismatch = 3,
  /// Outputs were written, but gpumerge hit a bug of its own on some kernel
  /// (a pass failed, crashed or made malformed KIR): that pass was dropped
  /// for that kernel, with a warning saying so.
  ExitInternal = 4,
};

/// The worse of two exit codes, for a run over several kernels or files:
/// a mismatch (wrong code found) is worst, then usage and input errors,
/// then internal errors (output written), then success.
int worseExit(int A, int B);

struct DriverOptions {
  std::vector<std::string> Inputs;
  std::string Target;                 ///< name or path of a YAML file
  std::optional<Language> OutputLang; ///< default: the input's
  std::optional<std::string> Passes;  ///< --passes=; default: the pipelines
  /// --disable-passes=: passes left out of the default pipelines (to measure
  /// what one of them buys, or to keep it off a kernel it does not suit).
  std::vector<std::string> DisabledPasses;
  std::string Memory = "both"; ///< global | texture | both
  bool Verify = false;
  bool Analyze = false;
  bool JsonReport = false;
  SizeBindings Sizes;
  std::optional<std::array<std::int64_t, 2>> Grid;
  std::string Output;    ///< -o
  std::string OutDir;    ///< --out-dir
  std::string EmitSteps; ///< --emit-steps=DIR
  std::string Merge;     ///< --merge=block-y=16,thread-x=4
  std::string Texture;   ///< --texture=object|ldg|restrict; "": the default
  std::vector<std::string> ClangArgs; ///< after --
  /// --reference=FILE.cl: verify against this OpenCL source (kernels of the
  /// same names and parameters) instead of the input.
  std::string Reference;
  /// Hidden --debug-fail=WHAT, for the tests of gpumerge's own failures:
  /// lower-crash=NAME (lowering that function aborts), pass-crash=NAME (the
  /// pass aborts), pass-error=NAME (it returns an error),
  /// pass-malformed=NAME (it leaves malformed KIR), nvcc-reject=KERNEL
  /// (the kernel's optimized form does not compile with nvcc),
  /// verify-candidate=crash|hang (the emitted kernel's run on the device),
  /// tune-kill-after=N (--tune is killed after N measurements).
  std::string DebugFail;
  /// A batch (Batch.h): -j workers (0: the hardware threads), -p's
  /// directory (or file) of compile_commands.json, --files globs.
  unsigned Jobs = 0;
  std::string CompileCommands;
  std::vector<std::string> FileGlobs;
  /// --tune[=N] (Tune.h): candidates per kernel and variant, 0 for the
  /// whole space; unset: the model's choice, untimed.
  std::optional<unsigned> Tune;
  /// --tune=pareto: time the model's choice and the versions on the
  /// carving Pareto front (Carving.h) instead of the first N.
  bool TunePareto = false;
  /// --device: where --verify and --tune run kernels: "opencl" (the first
  /// OpenCL device: PoCL here), "cuda[:N]" (CUDA device N, for CUDA files
  /// written as CUDA; an error when there is none), "auto" (CUDA device 0
  /// where there is one, else OpenCL).
  std::string Device = "auto";
  /// Set by runDriver from Device: the CUDA device that runs CUDA files
  /// written as CUDA (none: everything runs on OpenCL), whether --device
  /// named it, and why auto chose OpenCL.
  std::optional<unsigned> CudaDevice;
  bool CudaDeviceNamed = false;
  std::string DeviceNote;
  /// --tune-cache=FILE; without --tune, read only. Empty with --tune:
  /// TuneCache::defaultPath().
  std::string TuneCache;
};

struct MachineDescription;

/// Runs gpumerge (RunDriver.cpp): checks the options, then runs a batch
/// (Batch.h) or each file (runFile). Results go to \p Out (reports,
/// analysis), messages to \p Err (warnings and errors with file and line).
int runDriver(const DriverOptions &Opts, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err);

/// The whole pipeline over one input file, as runDriver runs it for each
/// file named: parse, passes, verify, outputs (under Opts.OutDir, else beside
/// the input), warnings to \p Err, its report object appended to
/// \p ReportFiles. Returns its exit code. Opts must have been checked by
/// runDriver. A batch (Batch.h) calls it once per file, from several threads.
int runFile(const DriverOptions &Opts, const MachineDescription &MD,
            const std::string &Input, llvm::json::Array &ReportFiles,
            llvm::raw_ostream &Out, llvm::raw_ostream &Err);

/// Parses "w=1000,h=1003" into \p Sizes; false on a malformed item.
bool parseSizes(llvm::StringRef Spec, SizeBindings &Sizes, std::string &Bad);
/// Parses "X[,Y]" threads.
bool parseGrid(llvm::StringRef Spec, std::array<std::int64_t, 2> &Grid);

/// Writes \p Text to \p Path through a temporary file renamed into place, so
/// the file is written whole or not at all.
llvm::Error writeFileAtomically(const std::string &Path,
                                const std::string &Text);

} // namespace gpumerge

#endif

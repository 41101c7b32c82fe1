//===- gpumerge.cpp - The gpumerge command
//---------------------------------===//
//
// Thin: parses options, then calls runDriver in lib/Driver. Clang options for
// the parse go after `--`, as with every Clang tool.
//
//===----------------------------------------------------------------------===//
#include "Driver/Driver.h"
#include "Driver/Tune.h"
#include "Target/MachineDescription.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;
using namespace gpumerge;

static cl::OptionCategory Category("gpumerge options");
static cl::list<std::string> Inputs(cl::Positional,
                                    cl::desc("<input files or directories>"),
                                    cl::cat(Category));
static cl::opt<std::string> Target("target",
                                   cl::desc("GPU: a name (see "
                                            "--list-targets) or a .yaml path"),
                                   cl::cat(Category));
static cl::opt<bool> ListTargets("list-targets",
                                 cl::desc("List the known targets"),
                                 cl::cat(Category));
static cl::opt<std::string> Lang("lang",
                                 cl::desc("Output language: cuda or "
                                          "opencl (default: the input's)"),
                                 cl::cat(Category));
static cl::opt<std::string> Passes("passes",
                                   cl::desc("Comma-separated passes, or none"),
                                   cl::cat(Category));
static cl::list<std::string>
    DisablePasses("disable-passes",
                  cl::desc("Passes left out of the default pipelines "
                           "(comma-separated), e.g. async-prefetch"),
                  cl::CommaSeparated, cl::cat(Category));
static cl::opt<std::string> Memory("memory",
                                   cl::desc("Variant: global, texture or both"),
                                   cl::init("both"), cl::cat(Category));
static cl::opt<std::string>
    Texture("texture",
            cl::desc("Texture form: object (cudaTextureObject_t, "
                     "tex1Dfetch), ldg (__ldg) or restrict (const "
                     "__restrict__ reads); default: restrict on sm_35+, "
                     "where the texture variant follows the global one, "
                     "else object (ldg for the paper's variant on sm_35+)"),
            cl::cat(Category));
static cl::opt<bool>
    Verify("verify",
           cl::desc("Run input and output on "
                    "OpenCL (PoCL) and compare; exit 3 on mismatch"),
           cl::cat(Category));
static cl::opt<bool> Analyze("analyze",
                             cl::desc("Print each global access "
                                      "with its index kind and coalescing"),
                             cl::cat(Category));
static cl::opt<std::string> Report("report",
                                   cl::desc("Report format: text or "
                                            "json"),
                                   cl::init("text"), cl::cat(Category));
static cl::list<std::string> Sizes("size", cl::desc("Sizes: name=v,..."),
                                   cl::cat(Category));
static cl::opt<std::string> Grid("grid",
                                 cl::desc("Launch domain in threads: "
                                          "X[,Y] (when guards do not tell; "
                                          "--verify assumes 8192 for a 1-D "
                                          "kernel of one element a thread)"),
                                 cl::cat(Category));
static cl::opt<std::string> Output("o", cl::desc("Output file (one variant)"),
                                   cl::cat(Category));
static cl::opt<std::string> OutDir("out-dir", cl::desc("Directory for outputs"),
                                   cl::cat(Category));
static cl::opt<std::string> EmitSteps("emit-steps",
                                      cl::desc("Write the kernel "
                                               "after every pass into DIR"),
                                      cl::cat(Category));
static cl::opt<std::string>
    Merge("merge",
          cl::desc("Force merge factors: block-x=N,block-y=N,thread-x=N,"
                   "thread-y=N (blocks relative to the coalesced block)"),
          cl::cat(Category));

static cl::opt<unsigned>
    Jobs("j",
         cl::desc("Batch: files run at once (default: the hardware "
                  "threads); the output is the same as with -j 1"),
         cl::value_desc("N"), cl::Prefix, cl::cat(Category));
static cl::opt<std::string> CompileCommands(
    "p",
    cl::desc("Batch: take the files and their -I/-D/-U/-include/-std flags "
             "from DIR/compile_commands.json"),
    cl::value_desc("DIR"), cl::cat(Category));
static cl::list<std::string>
    FileGlobs("files",
              cl::desc("Batch: take only files whose path matches GLOB "
                       "(repeatable; '*' matches '/' too)"),
              cl::value_desc("GLOB"), cl::cat(Category));

static cl::opt<std::string>
    Tune("tune", cl::ValueOptional,
         cl::desc("Run the model's first N versions of each kernel (default "
                  "6; 'all': the whole space; 'pareto': the model's choice "
                  "and the versions on the carving Pareto front) on the "
                  "verify device, each verified, then timed; write the "
                  "fastest"),
         cl::value_desc("N"), cl::cat(Category));
static cl::opt<std::string>
    Device("device",
           cl::desc("Where --verify and --tune run kernels: opencl, the "
                    "first OpenCL device (PoCL on a CPU); cuda[:N], CUDA "
                    "device N through NVRTC and the driver, for CUDA files "
                    "written as CUDA (an error without one); auto (default): "
                    "cuda:0 where there is one, else opencl"),
           cl::init("auto"), cl::cat(Category));
static cl::opt<std::string> TuneCacheFile(
    "tune-cache",
    cl::desc("The tuning cache (JSON lines; default "
             "~/.cache/gpumerge/tune.jsonl). Without --tune: take the "
             "fastest recorded version, time nothing"),
    cl::value_desc("FILE"), cl::cat(Category));

static cl::opt<std::string> Reference(
    "reference",
    cl::desc("With --verify: compare against this OpenCL file (kernels of "
             "the input's names and parameters) instead of the input"),
    cl::value_desc("FILE.cl"), cl::cat(Category));
static cl::opt<std::string>
    DebugFail("debug-fail",
              cl::desc("Make gpumerge fail on purpose, for its tests: "
                       "pass-crash=NAME, pass-error=NAME, "
                       "pass-malformed=NAME, nvcc-reject=KERNEL, "
                       "verify-candidate=crash|hang|drop-barrier|weaken-wait, "
                       "tune-kill-after=N"),
              cl::Hidden, cl::cat(Category));

static cl::extrahelp CompilerFlagsHelp(R"(
COMPILER FLAGS:
  gpumerge [options] <input files> -- <flags>
  What follows `--` is for the parse, as a compiler would take it: -I DIR,
  -D NAME[=VALUE], -U NAME, -include FILE, -std=... (CUDA and OpenCL). The
  -I, -D and -U flags are passed on to the OpenCL build of --verify. The
  input's own directory is always searched for its quoted includes.

BATCH:
  gpumerge --target=T --out-dir=OUT DIR... [FILE...] [-j N]
  gpumerge --target=T --out-dir=OUT -p BUILD [--files=GLOB]
  A directory is walked recursively for .cu, .cl and .cuh files that define
  a kernel; its tree is mirrored under OUT (required, and outside the input
  directories). -p takes the files of BUILD/compile_commands.json (or, with
  inputs named, their flags). Messages come in the files' order at any -j;
  a summary table ends on stderr; --report=json wraps the files' reports.
  The exit code is the worst of the files'.

EXIT CODES:
  0 done; 1 bad input (file and line given); 2 usage; 3 --verify mismatch
  (or --tune found the model's choice wrong and nothing else ran);
  4 some kernel was written unchanged because of a gpumerge bug (the warning
  names it)
)");

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // Everything after `--` is for Clang.
  std::vector<const char *> Args;
  std::vector<std::string> ClangArgs;
  bool AfterDashes = false;
  for (int I = 0; I < argc; ++I) {
    if (AfterDashes)
      ClangArgs.push_back(argv[I]);
    else if (std::string(argv[I]) == "--")
      AfterDashes = true;
    else
      Args.push_back(argv[I]);
  }
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          int(Args.size()), Args.data(),
          "gpumerge: optimizes naive CUDA and OpenCL kernels for a GPU\n",
          &errs()))
    return ExitUsage;

  if (ListTargets) {
    std::string Dir = defaultTargetsDir();
    for (const std::string &Name : listTargets(Dir)) {
      auto MD = loadTarget(Name, Dir);
      outs() << Name;
      if (MD)
        outs() << "\t" << MD->DisplayName;
      else
        consumeError(MD.takeError());
      outs() << "\n";
    }
    return ExitOk;
  }

  DriverOptions Opts;
  Opts.Inputs = Inputs;
  Opts.Target = Target;
  Opts.ClangArgs = ClangArgs;
  if (!Lang.empty()) {
    if (Lang == "cuda")
      Opts.OutputLang = Language::Cuda;
    else if (Lang == "opencl")
      Opts.OutputLang = Language::OpenCL;
    else {
      errs() << "error: --lang must be cuda or opencl\n";
      return ExitUsage;
    }
  }
  if (Passes.getNumOccurrences())
    Opts.Passes = Passes;
  Opts.DisabledPasses.assign(DisablePasses.begin(), DisablePasses.end());
  Opts.Memory = Memory;
  Opts.Verify = Verify;
  Opts.Analyze = Analyze;
  if (Report != "text" && Report != "json") {
    errs() << "error: --report must be text or json\n";
    return ExitUsage;
  }
  Opts.JsonReport = Report == "json";
  for (const std::string &S : Sizes) {
    std::string Bad;
    if (!parseSizes(S, Opts.Sizes, Bad)) {
      errs() << "error: --size wants name=positive-integer, got '" << Bad
             << "'\n";
      return ExitUsage;
    }
  }
  if (!Grid.empty()) {
    std::array<std::int64_t, 2> G;
    if (!parseGrid(Grid, G)) {
      errs() << "error: --grid wants X[,Y] thread counts, got '" << Grid
             << "'\n";
      return ExitUsage;
    }
    Opts.Grid = G;
  }
  Opts.Output = Output;
  Opts.OutDir = OutDir;
  Opts.EmitSteps = EmitSteps;
  Opts.Merge = Merge;
  Opts.Texture = Texture;
  Opts.DebugFail = DebugFail;
  Opts.Reference = Reference;
  Opts.Jobs = Jobs;
  Opts.CompileCommands = CompileCommands;
  Opts.FileGlobs = FileGlobs;
  if (Tune.getNumOccurrences()) {
    unsigned N = DefaultTuneCandidates;
    if (Tune == "all" || Tune == "pareto")
      N = 0;
    else if (!Tune.empty() &&
             (llvm::StringRef(Tune).getAsInteger(10, N) || N == 0)) {
      errs() << "error: --tune wants a number of candidates, 'all' or "
                "'pareto', got '"
             << Tune << "'\n";
      return ExitUsage;
    }
    Opts.Tune = N;
    Opts.TunePareto = Tune == "pareto";
  }
  Opts.TuneCache = TuneCacheFile;
  Opts.Device = Device;
  return runDriver(Opts, outs(), errs());
}

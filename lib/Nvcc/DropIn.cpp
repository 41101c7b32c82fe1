//===- DropIn.cpp - gpumerge-nvcc: nvcc with gpumerge in front ------------===//
#include "Nvcc/DropIn.h"
#include "Nvcc/ArchTarget.h"
#include "Nvcc/Dependencies.h"
#include "Nvcc/LineDirectives.h"
#include "Nvcc/NvccCommand.h"
#include "Target/MachineDescription.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <unistd.h>

extern char **environ;

using namespace gpumerge;
using namespace gpumerge::nvcc;

namespace {

llvm::Error failure(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

bool envSet(const char *Name) {
  auto V = llvm::sys::Process::GetEnv(Name);
  return V && !V->empty() && *V != "0";
}

/// Our own messages: stderr only, one prefix, never a `#$ ` line.
llvm::raw_ostream &message(const char *Kind) {
  return llvm::errs() << "gpumerge-nvcc: " << Kind << ": ";
}

std::string readFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  return Buf ? (*Buf)->getBuffer().str() : "";
}

llvm::Error writeFile(llvm::StringRef Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return failure("cannot write " + Path + ": " + EC.message());
  OS << Text;
  OS.close();
  if (OS.has_error()) {
    std::error_code E = OS.error();
    OS.clear_error();
    return failure("cannot write " + Path + ": " + E.message());
  }
  return llvm::Error::success();
}

std::string replaceAll(std::string Text, llvm::StringRef From,
                       llvm::StringRef To) {
  if (From.empty())
    return Text;
  size_t At = 0;
  while ((At = Text.find(From.data(), At, From.size())) != std::string::npos) {
    Text.replace(At, From.size(), To.data(), To.size());
    At += To.size();
  }
  return Text;
}

/// Replaces this process with \p Program: stdin, stdout, stderr and the exit
/// code are then exactly the program's (CMake parses nvcc's --version).
int execInstead(const std::string &Program,
                const std::vector<std::string> &Args) {
  std::vector<char *> Argv;
  Argv.push_back(const_cast<char *>(Program.c_str()));
  for (const std::string &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  llvm::outs().flush();
  llvm::errs().flush();
  ::execv(Program.c_str(), Argv.data());
  message("error") << "cannot run " << Program << ": " << std::strerror(errno)
                   << "\n";
  return 127;
}

/// Runs \p Program; stdout and stderr go to \p Out and \p Err when given
/// (captured), else to ours. Returns the exit code, or 1 (with a message)
/// when it could not run or died of a signal.
int run(const std::string &Program, const std::vector<std::string> &Args,
        std::optional<std::vector<std::string>> Env = std::nullopt,
        const std::string &Out = "", const std::string &Err = "") {
  std::vector<llvm::StringRef> Argv = {Program};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  std::vector<llvm::StringRef> EnvRefs;
  if (Env)
    EnvRefs.assign(Env->begin(), Env->end());
  // StringRefs to Out and Err themselves: std::optional(Out) would be an
  // optional<std::string>, a temporary whose text dies before the run.
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, std::nullopt,
                                                std::nullopt};
  if (!Out.empty())
    Redirects[1] = llvm::StringRef(Out);
  if (!Err.empty())
    Redirects[2] = llvm::StringRef(Err);
  if (envSet("GPUMERGE_VERBOSE")) {
    message("note") << "running";
    for (llvm::StringRef A : Argv)
      llvm::errs() << " " << A;
    llvm::errs() << "\n";
  }
  llvm::outs().flush();
  llvm::errs().flush();
  std::string Why;
  bool Failed = false;
  int RC = llvm::sys::ExecuteAndWait(
      Program, Argv,
      Env ? std::optional<llvm::ArrayRef<llvm::StringRef>>(EnvRefs)
          : std::nullopt,
      Redirects, 0, 0, &Why, &Failed);
  if (Failed || RC < 0) {
    message("error") << Program << ": "
                     << (Why.empty() ? "did not finish" : Why) << "\n";
    return 1;
  }
  return RC;
}

bool sameFile(llvm::StringRef A, llvm::StringRef B) {
  return llvm::sys::fs::equivalent(A, B);
}

/// The first message of gpumerge's stderr worth one line: an error if there
/// is one, else its first line.
std::string firstLine(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  Text.split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    if (L.contains("error"))
      return L.trim().str();
  for (llvm::StringRef L : Lines)
    if (!L.trim().empty())
      return L.trim().str();
  return "";
}

/// What one CUDA source became.
struct Source {
  size_t ArgIndex;
  std::string Original;    ///< as given on the command line
  std::string OriginalDir; ///< its directory as given ("" for none)
  std::string AbsoluteDir; ///< that directory, absolute
  std::string Copy;        ///< the rewrite nvcc compiles; "" for none
};

class DropIn {
public:
  DropIn(const std::string &Self) : Self(Self) {}

  int run(llvm::ArrayRef<std::string> Args) {
    auto Nvcc = findRealNvcc(Self);
    if (!Nvcc) {
      message("error") << llvm::toString(Nvcc.takeError()) << "\n";
      return 127;
    }
    RealNvcc = *Nvcc;
    auto C = parseCommand(Args);
    if (!C) {
      // nvcc will say what is wrong with the command line better.
      llvm::consumeError(C.takeError());
      return execInstead(RealNvcc, Args.vec());
    }
    Cmd = std::move(*C);
    if (Cmd.What == Action::PassThrough || envSet("GPUMERGE_DISABLE"))
      return execInstead(RealNvcc, Cmd.nvccArgs());
    Strict = envSet("GPUMERGE_STRICT");
    if (int Code = readGpumergeOptions())
      return Code;

    auto G = findGpumerge(Self);
    if (!G)
      return fallbackAll(llvm::toString(G.takeError()));
    Gpumerge = *G;
    if (Target.empty())
      chooseTargetFromArchitectures();
    if (Target.empty())
      return fallbackAll("no machine description for this build's GPU");

    if (auto EC = llvm::sys::fs::createUniqueDirectory("gpumerge-nvcc", Temp)) {
      message("error") << "cannot create a temporary directory: "
                       << EC.message() << "\n";
      return 1;
    }
    auto Cleanup = llvm::make_scope_exit([&] {
      if (envSet("GPUMERGE_NVCC_KEEP"))
        message("note") << "kept " << Temp << "\n";
      else
        llvm::sys::fs::remove_directories(Temp);
    });

    llvm::json::Array Reports;
    for (size_t I : Cmd.CudaSources)
      if (int Code = rewrite(I, Reports))
        return Code;
    if (!ReportFile.empty())
      writeReport(Reports);
    return compile();
  }

private:
  std::string Self, RealNvcc, Gpumerge, Target, ReportFile;
  std::vector<std::string> GpumergeOptions;
  bool Strict = false, MemoryGiven = false;
  Command Cmd;
  llvm::SmallString<128> Temp;
  std::vector<Source> Sources;

  std::string tempPath(const llvm::Twine &Name) const {
    llvm::SmallString<256> P(Temp);
    llvm::sys::path::append(P, Name);
    llvm::sys::RemoveFileOnSignal(P);
    return std::string(P);
  }

  /// -Xgpumerge: --target and --report-file are ours; the output is ours to
  /// choose; the rest goes to gpumerge.
  int readGpumergeOptions() {
    if (auto T = llvm::sys::Process::GetEnv("GPUMERGE_TARGET");
        T && !T->empty())
      Target = *T;
    for (const std::string &O : Cmd.gpumergeOptions()) {
      llvm::StringRef S(O);
      if (S.consume_front("--target=") || S.consume_front("-target=")) {
        Target = S.str();
      } else if (S.consume_front("--report-file=")) {
        ReportFile = S.str();
      } else if (S == "-o" || S.startswith("-o=") ||
                 S.startswith("--out-dir") || S.startswith("--lang") ||
                 S.startswith("--emit-steps") || S == "--analyze" ||
                 S == "--list-targets" || S == "--memory=both") {
        message("error") << "-Xgpumerge " << O
                         << ": gpumerge-nvcc compiles one rewrite of each "
                            "source in its own language and chooses where it "
                            "goes\n";
        return 1;
      } else {
        MemoryGiven |= S.startswith("--memory");
        GpumergeOptions.push_back(O);
      }
    }
    return 0;
  }

  void chooseTargetFromArchitectures() {
    std::vector<std::pair<std::string, unsigned>> Described;
    std::string Dir = defaultTargetsDir();
    for (const std::string &Name : listTargets(Dir)) {
      auto MD = loadTarget(Name, Dir);
      if (!MD) {
        llvm::consumeError(MD.takeError());
        continue;
      }
      if (unsigned Sm = smNumber(MD->SmArch))
        Described.push_back({Name, Sm});
    }
    TargetChoice TC = chooseTarget(Cmd.architectures(),
                                   Cmd.symbolicArchitecture(), Described);
    Target = TC.Target;
    if (!TC.Note.empty())
      message("note") << TC.Note << "\n";
  }

  /// gpumerge could not be used at all: compile the originals.
  int fallbackAll(const std::string &Why) {
    if (Strict) {
      message("error") << Why << " (GPUMERGE_STRICT is set)\n";
      return 1;
    }
    message("warning") << Why << "; compiling the sources as they are\n";
    return execInstead(RealNvcc, Cmd.nvccArgs());
  }

  /// The environment of gpumerge: the real nvcc first on PATH and named by
  /// GPUMERGE_NVCC (its ptxas checks and CUDA headers must not find this
  /// drop-in), and -ccbin as nvcc's NVCC_CCBIN.
  std::vector<std::string> gpumergeEnvironment() const {
    std::vector<std::string> Env;
    std::string NvccDir(llvm::sys::path::parent_path(RealNvcc));
    bool SawPath = false;
    for (char **E = environ; *E; ++E) {
      llvm::StringRef Var(*E);
      if (Var.startswith("GPUMERGE_NVCC=") || Var.startswith("NVCC_CCBIN="))
        continue;
      if (Var.consume_front("PATH=")) {
        Env.push_back("PATH=" + NvccDir + ":" + Var.str());
        SawPath = true;
        continue;
      }
      Env.push_back(*E);
    }
    if (!SawPath)
      Env.push_back("PATH=" + NvccDir);
    Env.push_back("GPUMERGE_NVCC=" + RealNvcc);
    if (auto CCBin = Cmd.lastValue("compiler-bindir"))
      Env.push_back("NVCC_CCBIN=" + *CCBin);
    return Env;
  }

  /// Runs gpumerge on the I-th argument (a CUDA source); 0, or the exit
  /// code when that ends the run (GPUMERGE_STRICT).
  int rewrite(size_t I, llvm::json::Array &Reports) {
    Source S;
    S.ArgIndex = I;
    S.Original = Cmd.Args[I].Value;
    S.OriginalDir = llvm::sys::path::parent_path(S.Original).str();
    llvm::SmallString<256> Abs(S.OriginalDir.empty() ? "." : S.OriginalDir);
    llvm::sys::fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/false);
    S.AbsoluteDir = std::string(Abs);

    auto Text = llvm::MemoryBuffer::getFile(S.Original);
    // Unreadable: nvcc says so. No kernel in the file: nothing to do (the
    // parse would cost a second for nothing).
    if (!Text || !(*Text)->getBuffer().contains("__global__")) {
      Sources.push_back(S);
      return 0;
    }
    std::string Original = (*Text)->getBuffer().str();

    std::string N = std::to_string(Sources.size());
    std::string Rewritten =
        tempPath(N + ".gpumerge" + llvm::sys::path::extension(S.Original));
    std::string Out = tempPath(N + ".stdout"), Err = tempPath(N + ".stderr");
    std::vector<std::string> Args = {"--target=" + Target};
    if (!MemoryGiven)
      Args.push_back("--memory=global");
    if (!ReportFile.empty())
      Args.push_back("--report=json");
    Args.insert(Args.end(), GpumergeOptions.begin(), GpumergeOptions.end());
    Args.insert(Args.end(), {"-o", Rewritten, S.Original, "--"});
    std::vector<std::string> ClangArgs = Cmd.clangArgs();
    Args.insert(Args.end(), ClangArgs.begin(), ClangArgs.end());
    int RC = ::run(Gpumerge, Args, gpumergeEnvironment(), Out, Err);
    std::string Messages = readFile(Err);
    if (envSet("GPUMERGE_VERBOSE"))
      llvm::errs() << Messages;

    // 0: rewritten; 4: rewritten, but a pass hit a gpumerge bug on some
    // kernel and was skipped there (the output is still right).
    if (RC != 0 && RC != 4) {
      std::string Why = llvm::formatv("gpumerge could not rewrite {0} (exit "
                                      "{1}: {2})",
                                      S.Original, RC, firstLine(Messages));
      if (Strict) {
        message("error") << Why << "\n" << Messages;
        return RC ? RC : 1;
      }
      message("warning") << Why << "; compiling the original\n";
      Sources.push_back(S);
      return 0;
    }
    if (RC == 4)
      message("warning") << "gpumerge hit a bug of its own on " << S.Original
                         << " (" << firstLine(Messages)
                         << "); that pass was skipped there, the rest is "
                            "compiled as rewritten\n";
    if (!ReportFile.empty()) {
      if (auto J = llvm::json::parse(readFile(Out)))
        Reports.push_back(std::move(*J));
      else
        llvm::consumeError(J.takeError());
    }

    std::string New = readFile(Rewritten);
    if (New.empty() || New == Original) {
      Sources.push_back(S); // nothing changed: compile the original
      return 0;
    }
    std::string Copy = addLineDirectives(Original, New, S.Original);
    Copy = anchorQuotedIncludes(Copy, S.AbsoluteDir);
    if (llvm::sys::Process::GetEnv("GPUMERGE_NVCC_DEBUG").value_or("") ==
        "break-rewrite")
      Copy += "#error gpumerge-nvcc debug: a rewrite nvcc rejects\n";
    // Under the original's own name: nvcc names outputs (x.o, x.d, -keep
    // files) after the input.
    llvm::SmallString<256> Dir(Temp);
    llvm::sys::path::append(Dir, N);
    llvm::sys::fs::create_directories(Dir);
    S.Copy = tempPath(N + "/" + llvm::sys::path::filename(S.Original));
    if (auto E = writeFile(S.Copy, Copy)) {
      message("warning") << llvm::toString(std::move(E))
                         << "; compiling the original\n";
      S.Copy.clear();
    }
    Sources.push_back(S);
    return 0;
  }

  void writeReport(llvm::json::Array &Reports) {
    llvm::json::Value V =
        Reports.size() == 1 ? std::move(Reports[0])
                            : llvm::json::Object{{"files", std::move(Reports)}};
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << llvm::formatv("{0:2}", V) << "\n";
    if (auto E = writeFile(ReportFile, OS.str()))
      message("warning") << llvm::toString(std::move(E)) << "\n";
  }

  /// Paths of the copies as the user knows them, for nvcc's messages and
  /// dependency files.
  std::vector<PathRewrite> pathRewrites() const {
    std::vector<PathRewrite> R;
    for (const Source &S : Sources)
      if (!S.Copy.empty()) {
        R.push_back({S.Copy, S.Original, false});
        R.push_back({S.AbsoluteDir, S.OriginalDir, true});
      }
    return R;
  }

  std::string spellBack(std::string Text) const {
    for (const PathRewrite &R : pathRewrites())
      Text = replaceAll(std::move(Text), R.Prefix ? R.From + "/" : R.From,
                        R.Prefix ? (R.To.empty() ? "" : R.To + "/") : R.To);
    return Text;
  }

  /// The dependency files nvcc -MD/-MMD wrote: -MF, else -o's name with .d,
  /// else each input's name with .d in -odir or here.
  std::vector<std::string> dependencyFiles() const {
    if (!Cmd.has("generate-dependencies-with-compile") &&
        !Cmd.has("generate-nonsystem-dependencies-with-compile"))
      return {};
    if (auto MF = Cmd.lastValue("dependency-output"))
      return {*MF};
    if (auto O = Cmd.lastValue("output-file")) {
      llvm::SmallString<256> P(*O);
      llvm::sys::path::replace_extension(P, ".d");
      return {std::string(P)};
    }
    std::vector<std::string> Out;
    std::string Dir = Cmd.lastValue("output-directory").value_or("");
    for (const Source &S : Sources) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, llvm::sys::path::stem(S.Original) + ".d");
      Out.push_back(std::string(P));
    }
    return Out;
  }

  int compile() {
    std::map<size_t, std::string> Replace;
    for (const Source &S : Sources)
      if (!S.Copy.empty())
        Replace[S.ArgIndex] = S.Copy;
    if (Replace.empty())
      return execInstead(RealNvcc, Cmd.nvccArgs());

    std::string Out = tempPath("nvcc.stdout"), Err = tempPath("nvcc.stderr");
    int RC = ::run(RealNvcc, Cmd.nvccArgs(Replace), std::nullopt, Out, Err);
    std::string OutText = spellBack(readFile(Out)),
                ErrText = spellBack(readFile(Err));
    if (RC == 0) {
      llvm::outs() << OutText;
      llvm::outs().flush();
      llvm::errs() << ErrText;
      std::vector<PathRewrite> Rewrites = pathRewrites();
      for (const std::string &D : dependencyFiles()) {
        std::string Deps = readFile(D);
        if (Deps.empty())
          continue;
        std::string Fixed = rewriteDependencyPaths(Deps, Rewrites);
        if (Fixed != Deps)
          if (auto E = writeFile(D, Fixed))
            message("warning") << llvm::toString(std::move(E)) << "\n";
      }
      return 0;
    }
    // nvcc rejected the rewrite. The original decides: if it compiles, the
    // rewrite was wrong (a gpumerge bug) and the original's result stands;
    // if not, its diagnostics are the user's to read, on their own lines.
    int Again = ::run(RealNvcc, Cmd.nvccArgs());
    if (Again != 0)
      return Again;
    std::string Names;
    for (const Source &S : Sources)
      if (!S.Copy.empty())
        Names += (Names.empty() ? "" : ", ") + S.Original;
    if (Strict) {
      llvm::errs() << ErrText;
      message("error") << "nvcc rejected gpumerge's rewrite of " << Names
                       << ", which compiles as written (a gpumerge bug; "
                          "GPUMERGE_STRICT is set)\n";
      return RC;
    }
    message("warning") << "nvcc rejected gpumerge's rewrite of " << Names
                       << " (a gpumerge bug; GPUMERGE_VERBOSE=1 shows why); "
                          "compiled the original\n";
    if (envSet("GPUMERGE_VERBOSE"))
      llvm::errs() << ErrText;
    return 0;
  }
};

} // namespace

llvm::Expected<std::string> nvcc::findRealNvcc(const std::string &Self) {
  if (auto Named = llvm::sys::Process::GetEnv("GPUMERGE_NVCC");
      Named && !Named->empty()) {
    if (llvm::sys::fs::can_execute(*Named) && !sameFile(*Named, Self))
      return *Named;
    return failure("GPUMERGE_NVCC names '" + *Named +
                   "', which is not nvcc (not an executable, or gpumerge-nvcc "
                   "itself)");
  }
  if (auto Path = llvm::sys::Process::GetEnv("PATH")) {
    llvm::SmallVector<llvm::StringRef, 16> Dirs;
    llvm::StringRef(*Path).split(Dirs, ':', -1, false);
    for (llvm::StringRef Dir : Dirs) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, "nvcc");
      if (llvm::sys::fs::can_execute(P) && !llvm::sys::fs::is_directory(P) &&
          !sameFile(P, Self))
        return std::string(P);
    }
  }
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc"))
    return std::string("/usr/local/cuda/bin/nvcc");
  return failure("cannot find the real nvcc (GPUMERGE_NVCC, PATH, "
                 "/usr/local/cuda/bin): install the CUDA toolkit or set "
                 "GPUMERGE_NVCC");
}

llvm::Expected<std::string> nvcc::findGpumerge(const std::string &Self) {
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Self));
  for (const char *Rel : {"gpumerge", "../gpumerge/gpumerge"}) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Rel);
    if (llvm::sys::fs::can_execute(P) && !llvm::sys::fs::is_directory(P))
      return std::string(P);
  }
  if (auto OnPath = llvm::sys::findProgramByName("gpumerge"))
    return *OnPath;
  return failure("cannot find gpumerge (beside gpumerge-nvcc or on PATH)");
}

int nvcc::runDropIn(llvm::ArrayRef<std::string> Args, const std::string &Self) {
  return DropIn(Self).run(Args);
}

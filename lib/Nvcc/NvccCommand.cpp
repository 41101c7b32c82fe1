//===- NvccCommand.cpp - An nvcc command line, classified -----------------===//
#include "Nvcc/NvccCommand.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <set>

using namespace gpumerge;
using namespace gpumerge::nvcc;

namespace {

struct OptionInfo {
  const char *Long;  ///< without "--"
  const char *Short; ///< without "-"; "" when none
  bool TakesValue;
  bool List; ///< the value is a comma-separated list
};

// nvcc 13.0's options (`nvcc --help`), long and short names. Options that
// take a value take it after `=` or as the next token.
constexpr OptionInfo Options[] = {
    {"cuda", "cuda", false, false},
    {"cubin", "cubin", false, false},
    {"fatbin", "fatbin", false, false},
    {"ptx", "ptx", false, false},
    {"optix-ir", "optix-ir", false, false},
    {"ltoir", "ltoir", false, false},
    {"preprocess", "E", false, false},
    {"generate-dependencies", "M", false, false},
    {"generate-nonsystem-dependencies", "MM", false, false},
    {"generate-dependencies-with-compile", "MD", false, false},
    {"generate-nonsystem-dependencies-with-compile", "MMD", false, false},
    {"dependency-output", "MF", true, false},
    {"generate-dependency-targets", "MP", false, false},
    {"compile", "c", false, false},
    {"device-c", "dc", false, false},
    {"device-w", "dw", false, false},
    {"device-link", "dlink", false, false},
    {"link", "link", false, false},
    {"lib", "lib", false, false},
    {"run", "run", false, false},
    {"output-file", "o", true, false},
    {"pre-include", "include", true, true},
    {"objdir-as-tempdir", "objtemp", false, false},
    {"library", "l", true, true},
    {"define-macro", "D", true, true},
    {"undefine-macro", "U", true, true},
    {"include-path", "I", true, true},
    {"system-include", "isystem", true, true},
    {"library-path", "L", true, true},
    {"output-directory", "odir", true, false},
    {"compiler-bindir", "ccbin", true, false},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", false, false},
    {"archiver-binary", "arbin", true, false},
    {"cudart", "cudart", true, false},
    {"cudadevrt", "cudadevrt", true, false},
    {"libdevice-directory", "ldir", true, false},
    {"target-directory", "target-dir", true, false},
    {"use-local-env", "use-local-env", false, false},
    {"force-cl-env-setup", "force-cl-env-setup", false, false},
    {"profile", "pg", false, false},
    {"debug", "g", false, false},
    {"device-debug", "G", false, false},
    {"generate-line-info", "lineinfo", false, false},
    {"optimization-info", "opt-info", true, true},
    {"optimize", "O", true, false},
    {"Ofast-compile", "Ofc", true, false},
    {"dopt", "dopt", true, false},
    {"dlink-time-opt", "dlto", false, false},
    {"lto", "lto", false, false},
    {"gen-opt-lto", "gen-opt-lto", false, false},
    {"ftemplate-backtrace-limit", "ftemplate-backtrace-limit", true, false},
    {"ftemplate-depth", "ftemplate-depth", true, false},
    {"no-exceptions", "noeh", false, false},
    {"shared", "shared", false, false},
    {"x", "x", true, false},
    {"std", "std", true, false},
    {"no-host-device-initializer-list", "nohdinitlist", false, false},
    {"no-host-device-move-forward", "nohdmoveforward", false, false},
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", false, false},
    {"extended-lambda", "extended-lambda", false, false},
    {"expt-extended-lambda", "expt-extended-lambda", false, false},
    {"machine", "m", true, false},
    {"m64", "m64", false, false},
    {"compiler-options", "Xcompiler", true, true},
    {"linker-options", "Xlinker", true, true},
    {"archive-options", "Xarchive", true, true},
    {"ptxas-options", "Xptxas", true, true},
    {"nvlink-options", "Xnvlink", true, true},
    {"static-global-template-stub", "static-global-template-stub", true, false},
    {"device-entity-has-hidden-visibility",
     "device-entity-has-hidden-visibility", true, false},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler",
     false, false},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", false,
     false},
    {"forward-unknown-opts", "forward-unknown-opts", false, false},
    {"dont-use-profile", "noprof", false, false},
    {"dryrun", "dryrun", false, false},
    {"verbose", "v", false, false},
    {"threads", "t", true, false},
    {"split-compile", "split-compile", true, false},
    {"split-compile-extended", "split-compile-extended", true, false},
    {"fdevice-syntax-only", "fdevice-syntax-only", false, false},
    {"fdevice-time-trace", "fdevice-time-trace", true, false},
    {"keep", "keep", false, false},
    {"keep-dir", "keep-dir", true, false},
    {"save-temps", "save-temps", false, false},
    {"clean-targets", "clean", false, false},
    {"time", "time", true, false},
    {"run-args", "run-args", true, true},
    {"input-drive-prefix", "idp", true, false},
    {"dependency-drive-prefix", "ddp", true, false},
    {"drive-prefix", "dp", true, false},
    {"dependency-target-name", "MT", true, false},
    {"no-align-double", "", false, false},
    {"no-device-link", "nodlink", false, false},
    {"gpu-architecture", "arch", true, false},
    {"gpu-code", "code", true, true},
    {"generate-code", "gencode", true, true},
    {"relocatable-device-code", "rdc", true, false},
    {"entries", "e", true, true},
    {"maxrregcount", "maxrregcount", true, false},
    {"use_fast_math", "use_fast_math", false, false},
    {"ftz", "ftz", true, false},
    {"prec-div", "prec-div", true, false},
    {"prec-sqrt", "prec-sqrt", true, false},
    {"fmad", "fmad", true, false},
    {"extra-device-vectorization", "extra-device-vectorization", false, false},
    {"default-stream", "default-stream", true, false},
    {"disable-warnings", "w", false, false},
    {"keep-device-functions", "keep-device-functions", false, false},
    {"source-in-ptx", "src-in-ptx", false, false},
    {"restrict", "restrict", false, false},
    {"Wreorder", "Wreorder", false, false},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", false, false},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", false, false},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", false, false},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations", false,
     false},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", false, false},
    {"Werror", "Werror", true, true},
    {"resource-usage", "res-usage", false, false},
    {"extensible-whole-program", "ewp", false, false},
    {"no-compress", "no-compress", false, false},
    {"qpp-config", "qpp-config", false, false},
    {"compile-as-tools-patch", "astoolspatch", false, false},
    {"list-gpu-code", "code-ls", false, false},
    {"list-gpu-arch", "arch-ls", false, false},
    {"display-error-number", "err-no", false, false},
    {"no-display-error-number", "no-err-no", false, false},
    {"diag-error", "diag-error", true, true},
    {"diag-suppress", "diag-suppress", true, true},
    {"diag-warn", "diag-warn", true, true},
    {"host-linker-script", "hls", true, false},
    {"augment-host-linker-script", "aug-hls", false, false},
    {"relocatable-link", "r", false, false},
    {"brief-diagnostics", "brief-diag", true, false},
    {"jump-table-density", "jtd", true, false},
    {"relocatable-ptx", "reloc-ptx", false, false},
    {"device-stack-protector", "device-stack-protector", true, false},
    {"compress-mode", "compress-mode", true, false},
    {"frandom-seed", "frandom-seed", true, false},
    {"sanitize", "sanitize", true, false},
    {"jobserver", "jobserver", false, false},
    {"help", "h", false, false},
    {"version", "V", false, false},
    {"options-file", "optf", true, true},
    // gpumerge-nvcc's own: passed to gpumerge, never to nvcc.
    {"Xgpumerge", "Xgpumerge", true, false},
};

/// Short options whose value may be glued to them (`-Isub`, `-O3`).
constexpr const char *Glued[] = {"I", "D", "U", "L", "l", "O", "t"};

const OptionInfo *findOption(llvm::StringRef Token) {
  bool Long = Token.consume_front("--");
  if (!Long && !Token.consume_front("-"))
    return nullptr;
  for (const OptionInfo &O : Options)
    if (Token == (Long ? O.Long : O.Short) && *(Long ? O.Long : O.Short))
      return &O;
  return nullptr;
}

const OptionInfo *findLong(llvm::StringRef Long) {
  for (const OptionInfo &O : Options)
    if (Long == O.Long)
      return &O;
  return nullptr;
}

llvm::Error error(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

class Parser {
public:
  Parser(Command &C, llvm::StringRef WorkDir) : C(C), WorkDir(WorkDir) {}

  llvm::Error parse(llvm::ArrayRef<std::string> Tokens, int FromFile,
                    unsigned Depth) {
    for (size_t I = 0; I < Tokens.size(); ++I) {
      llvm::StringRef T = Tokens[I];
      Arg A;
      A.FromOptionsFile = FromFile;
      A.Spelling.push_back(T.str());
      if (!T.startswith("-") || T == "-") {
        A.Value = T.str(); // an input
        C.Args.push_back(std::move(A));
        continue;
      }
      auto [Name, Inline] = T.split('=');
      bool HasInline = T.contains('=');
      const OptionInfo *O = findOption(Name);
      if (!O)
        O = findOption(T);
      if (O) {
        A.Option = O->Long;
        if (O->TakesValue) {
          if (HasInline && findOption(Name) == O) {
            A.Value = Inline.str();
          } else if (I + 1 < Tokens.size()) {
            A.Value = Tokens[++I];
            A.Spelling.push_back(A.Value);
          } else {
            return error("nvcc option '" + T + "' needs a value");
          }
        }
      } else if (!T.startswith("--")) {
        // -Isub, -DX=1, -O3: a short option with its value glued on.
        for (const char *G : Glued)
          if (T.drop_front(1).startswith(G) && T.size() > 1 + strlen(G)) {
            const OptionInfo *GO = findOption(std::string("-") + G);
            A.Option = GO->Long;
            A.Value = T.drop_front(1 + strlen(G)).str();
            break;
          }
      }
      if (A.Option.empty())
        A.Option = T.str(); // an option we do not know: kept as written
      if (A.Option == "options-file") {
        size_t Index = C.Args.size();
        C.Args.push_back(A);
        if (auto E = readOptionsFiles(A.Value, int(Index), Depth))
          return E;
        continue;
      }
      C.Args.push_back(std::move(A));
    }
    return llvm::Error::success();
  }

private:
  Command &C;
  llvm::StringRef WorkDir;

  llvm::Error readOptionsFiles(llvm::StringRef List, int Index,
                               unsigned Depth) {
    if (Depth > 8)
      return error("options files nest too deeply");
    llvm::SmallVector<llvm::StringRef, 4> Files;
    List.split(Files, ',', -1, false);
    for (llvm::StringRef F : Files) {
      llvm::SmallString<256> Path(F);
      if (!WorkDir.empty() && !llvm::sys::path::is_absolute(Path))
        Path = (WorkDir + "/" + F).str();
      auto Buf = llvm::MemoryBuffer::getFile(Path);
      if (!Buf)
        return error("cannot read the options file '" + F +
                     "': " + Buf.getError().message());
      // nvcc's options files are whitespace-separated, with quotes.
      llvm::BumpPtrAllocator Alloc;
      llvm::StringSaver Saver(Alloc);
      llvm::SmallVector<const char *, 32> Tokens;
      llvm::cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Tokens);
      std::vector<std::string> Strings;
      for (const char *T : Tokens)
        if (T)
          Strings.push_back(T);
      if (auto E = parse(Strings, Index, Depth + 1))
        return E;
    }
    return llvm::Error::success();
  }
};

/// Splits nvcc's comma lists.
llvm::SmallVector<llvm::StringRef, 4> splitList(llvm::StringRef V) {
  llvm::SmallVector<llvm::StringRef, 4> Out;
  V.split(Out, ',', -1, false);
  return Out;
}

std::string absoluteIn(llvm::StringRef BaseDir, llvm::StringRef Path) {
  if (BaseDir.empty() || llvm::sys::path::is_absolute(Path))
    return Path.str();
  llvm::SmallString<256> P(BaseDir);
  llvm::sys::path::append(P, Path);
  return std::string(P);
}

} // namespace

bool nvcc::isSourceFile(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  for (const char *E :
       {".cu", ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cp", ".CPP"})
    if (Ext == E)
      return true;
  return false;
}

llvm::Expected<Command> nvcc::parseCommand(llvm::ArrayRef<std::string> Argv,
                                           llvm::StringRef WorkDir) {
  Command C;
  if (auto E = Parser(C, WorkDir).parse(Argv, -1, 0))
    return E;

  // -x cu makes every C/C++ source CUDA; -x c++ / -x c makes a .cu one not.
  std::optional<std::string> Language = C.lastValue("x");
  for (size_t I = 0; I < C.Args.size(); ++I) {
    const Arg &A = C.Args[I];
    if (!A.isInput())
      continue;
    bool Cuda = Language ? *Language == "cu" && isSourceFile(A.Value)
                         : llvm::sys::path::extension(A.Value) == ".cu";
    if (Cuda)
      C.CudaSources.push_back(I);
  }

  // What goes to nvcc as it is: the invocations that print something a
  // caller parses (CMake reads --version and the `#$ ` lines of -v and
  // --dryrun) or that only preprocess (-E, -M, -MM: the dependencies of the
  // original are those of the rewrite, which adds no include).
  static constexpr std::pair<const char *, const char *> Reasons[] = {
      {"version", "--version"},
      {"help", "--help"},
      {"verbose", "-v"},
      {"dryrun", "--dryrun"},
      {"preprocess", "-E"},
      {"generate-dependencies", "-M"},
      {"generate-nonsystem-dependencies", "-MM"},
      {"cuda", "-cuda"},
      {"list-gpu-code", "--list-gpu-code"},
      {"list-gpu-arch", "--list-gpu-arch"},
      {"fdevice-syntax-only", "-fdevice-syntax-only"},
  };
  for (const auto &[Long, Why] : Reasons)
    if (C.has(Long)) {
      C.PassThroughReason = Why;
      return C;
    }
  if (C.CudaSources.empty()) {
    C.PassThroughReason = "no CUDA source among the inputs";
    return C;
  }
  C.What = Action::Compile;
  return C;
}

bool Command::has(llvm::StringRef Long) const {
  return llvm::any_of(Args, [&](const Arg &A) { return A.Option == Long; });
}

std::optional<std::string> Command::lastValue(llvm::StringRef Long) const {
  std::optional<std::string> V;
  for (const Arg &A : Args)
    if (A.Option == Long)
      V = A.Value;
  return V;
}

std::vector<std::string> Command::gpumergeOptions() const {
  std::vector<std::string> Out;
  for (const Arg &A : Args)
    if (A.Option == "Xgpumerge")
      Out.push_back(A.Value);
  return Out;
}

std::vector<std::string> Command::clangArgs(llvm::StringRef BaseDir) const {
  std::vector<std::string> Out;
  // One flag of the parse; \p Kind is the nvcc long name's meaning.
  auto Add = [&](llvm::StringRef Kind, llvm::StringRef V) {
    if (Kind == "define-macro")
      Out.push_back(("-D" + V).str());
    else if (Kind == "undefine-macro")
      Out.push_back(("-U" + V).str());
    else if (Kind == "include-path")
      Out.push_back("-I" + absoluteIn(BaseDir, V));
    else if (Kind == "system-include")
      Out.insert(Out.end(), {"-isystem", absoluteIn(BaseDir, V)});
    else if (Kind == "pre-include")
      Out.insert(Out.end(), {"-include", absoluteIn(BaseDir, V)});
    else if (Kind == "std")
      Out.push_back(("-std=" + V).str());
  };
  for (const Arg &A : Args) {
    if (A.Option == "compiler-options") {
      // -Xcompiler -DX,-Iinc,-include,pch.h: the host compiler's spelling.
      auto Items = splitList(A.Value);
      for (size_t I = 0; I < Items.size(); ++I) {
        llvm::StringRef V = Items[I];
        auto Next = [&]() -> llvm::StringRef {
          return I + 1 < Items.size() ? Items[++I] : "";
        };
        if (V == "-include" || V == "-isystem" || V == "-I" || V == "-D" ||
            V == "-U") {
          llvm::StringRef Value = Next();
          if (Value.empty())
            continue;
          Add(V == "-include"   ? "pre-include"
              : V == "-isystem" ? "system-include"
              : V == "-I"       ? "include-path"
              : V == "-D"       ? "define-macro"
                                : "undefine-macro",
              Value);
        } else if (V.consume_front("-I")) {
          Add("include-path", V);
        } else if (V.consume_front("-D")) {
          Add("define-macro", V);
        } else if (V.consume_front("-U")) {
          Add("undefine-macro", V);
        } else if (V.consume_front("-isystem")) {
          Add("system-include", V);
        }
      }
      continue;
    }
    const OptionInfo *O = findLong(A.Option);
    if (!O)
      continue;
    llvm::StringRef Kind = O->Long;
    if (Kind == "std") {
      Add(Kind, A.Value);
    } else if (Kind == "define-macro" || Kind == "undefine-macro" ||
               Kind == "include-path" || Kind == "system-include" ||
               Kind == "pre-include") {
      for (llvm::StringRef V : splitList(A.Value))
        Add(Kind, V);
    }
  }
  return Out;
}

std::vector<unsigned> Command::architectures() const {
  std::set<unsigned> Archs;
  for (const Arg &A : Args) {
    if (A.Option != "gpu-architecture" && A.Option != "gpu-code" &&
        A.Option != "generate-code")
      continue;
    // sm_90, compute_90, sm_90a, lto_90 anywhere in the value:
    // arch=compute_75,code=[compute_75,sm_75] holds two.
    llvm::StringRef Rest = A.Value;
    while (!Rest.empty()) {
      size_t At = Rest.find_first_of("0123456789");
      if (At == llvm::StringRef::npos)
        break;
      llvm::StringRef Before = Rest.take_front(At);
      Rest = Rest.drop_front(At);
      unsigned N;
      size_t Len = Rest.find_first_not_of("0123456789");
      llvm::StringRef Digits = Rest.take_front(Len);
      Rest = Rest.drop_front(Digits.size());
      if (!Digits.getAsInteger(10, N) &&
          (Before.endswith("sm_") || Before.endswith("compute_") ||
           Before.endswith("lto_")))
        Archs.insert(N);
    }
  }
  return {Archs.begin(), Archs.end()};
}

std::string Command::symbolicArchitecture() const {
  for (const Arg &A : Args)
    if (A.Option == "gpu-architecture" &&
        (A.Value == "all" || A.Value == "all-major" || A.Value == "native"))
      return A.Value;
  return "";
}

std::vector<std::string>
Command::nvccArgs(const std::map<size_t, std::string> &Replace) const {
  // Options files that must be read in place: they hold something changed.
  std::set<int> Inline;
  for (size_t I = 0; I < Args.size(); ++I)
    if (Args[I].FromOptionsFile >= 0 &&
        (Replace.count(I) || Args[I].Option == "Xgpumerge"))
      for (int F = Args[I].FromOptionsFile; F >= 0;
           F = Args[size_t(F)].FromOptionsFile)
        Inline.insert(F);
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    const Arg &A = Args[I];
    // An argument read from a file appears only when that file (and every
    // file it came through) is read in place.
    bool Shown = true;
    for (int F = A.FromOptionsFile; F >= 0; F = Args[size_t(F)].FromOptionsFile)
      Shown &= Inline.count(F) > 0;
    if (!Shown || A.Option == "Xgpumerge")
      continue;
    if (A.Option == "options-file" && Inline.count(int(I)))
      continue;
    if (auto It = Replace.find(I); It != Replace.end()) {
      Out.push_back(It->second);
      continue;
    }
    Out.insert(Out.end(), A.Spelling.begin(), A.Spelling.end());
  }
  return Out;
}

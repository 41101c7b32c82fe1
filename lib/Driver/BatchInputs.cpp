//===- BatchInputs.cpp - Which files a batch takes, and where they go -----===//
#include "Driver/BatchInputs.h"
#include "Frontend/Frontend.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <set>

namespace gpumerge {

namespace {

llvm::Error usage(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

bool isSourceExtension(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".cu" || Ext == ".cl" || Ext == ".cuh";
}

/// \p Path absolute, without . and .., symlinks resolved where it exists
/// (an --out-dir may not exist yet).
std::string canonical(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return std::string(Real);
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

/// Whether \p Inner is \p Outer or below it (both canonical).
bool isWithin(llvm::StringRef Inner, llvm::StringRef Outer) {
  if (Inner == Outer)
    return true;
  return Inner.startswith(Outer) &&
         llvm::sys::path::is_separator(Inner[Outer.size()]);
}

/// \p Path relative to the working directory when it lies below it, so the
/// messages and reports of a database's absolute paths read as typed.
std::string displayPath(llvm::StringRef Path) {
  llvm::SmallString<256> Cwd;
  if (llvm::sys::fs::current_path(Cwd))
    return Path.str();
  if (Path.size() > Cwd.size() && isWithin(Path, Cwd))
    return Path.drop_front(Cwd.size() + 1).str();
  return Path.str();
}

/// The directory common to all \p Paths (absolute files).
std::string commonDirectory(const std::vector<std::string> &Paths) {
  if (Paths.empty())
    return "";
  std::string Common(llvm::sys::path::parent_path(Paths.front()));
  for (const std::string &P : Paths)
    while (!Common.empty() &&
           !isWithin(llvm::sys::path::parent_path(P), Common))
      Common = std::string(llvm::sys::path::parent_path(Common));
  return Common;
}

/// A file seen by the walk or named, before the filter.
struct Candidate {
  std::string Path;     ///< shown, and given to the parse
  std::string Relative; ///< under its root: what the output tree mirrors
  bool Named = false;   ///< named on the command line: taken as it is
};

/// Adds the source files below \p Dir, sorted, skipping hidden directories
/// (.git, .cache) and not following directory links (no cycles).
void walk(const std::string &Dir, std::vector<Candidate> &Out) {
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC,
                                                      /*follow=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    llvm::sys::fs::file_type Type = It->type();
    llvm::sys::fs::file_status Status;
    // Some file systems do not say in the directory listing.
    if (Type == llvm::sys::fs::file_type::type_unknown &&
        !llvm::sys::fs::status(It->path(), Status, /*follow=*/false))
      Type = Status.type();
    if (Type == llvm::sys::fs::file_type::directory_file) {
      if (Name.startswith("."))
        It.no_push();
      continue;
    }
    if (!isSourceExtension(Name))
      continue;
    // A link to a file is taken; one to a directory is not followed.
    if (Type == llvm::sys::fs::file_type::symlink_file &&
        !llvm::sys::fs::is_regular_file(It->path()))
      continue;
    llvm::StringRef Rel(It->path());
    Rel = Rel.drop_front(Dir.size());
    while (!Rel.empty() && llvm::sys::path::is_separator(Rel.front()))
      Rel = Rel.drop_front();
    Out.push_back({It->path(), Rel.str(), false});
  }
}

/// The compilation database of -p (a directory holding compile_commands.json,
/// or the file), with commands inferred for files it does not list (headers),
/// as clangd and clang-tidy infer them: from the nearest listed file.
llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
loadDatabase(const std::string &Where) {
  llvm::SmallString<256> File(Where);
  if (llvm::sys::fs::is_directory(File))
    llvm::sys::path::append(File, "compile_commands.json");
  std::string Error;
  auto DB = clang::tooling::JSONCompilationDatabase::loadFromFile(
      File, Error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB)
    return usage("-p: cannot read the compilation database '" + File +
                 "': " + Error);
  return clang::tooling::inferMissingCompileCommands(std::move(DB));
}

} // namespace

bool isBatchRequest(const DriverOptions &Opts) {
  if (!Opts.CompileCommands.empty())
    return true;
  return llvm::any_of(Opts.Inputs, [](const std::string &In) {
    return llvm::sys::fs::is_directory(In);
  });
}

bool definesKernel(llvm::StringRef Text, bool OpenCL) {
  auto IsIdent = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  size_t I = 0, N = Text.size();
  while (I < N) {
    char C = Text[I];
    if (Text.substr(I).startswith("//")) {
      I = Text.find('\n', I);
      if (I == llvm::StringRef::npos)
        return false;
      continue;
    }
    if (Text.substr(I).startswith("/*")) {
      I = Text.find("*/", I + 2);
      if (I == llvm::StringRef::npos)
        return false;
      I += 2;
      continue;
    }
    if (C == '"' || C == '\'') {
      for (++I; I < N && Text[I] != C && Text[I] != '\n'; ++I)
        if (Text[I] == '\\')
          ++I;
      ++I;
      continue;
    }
    if (!IsIdent(C)) {
      ++I;
      continue;
    }
    size_t Start = I;
    while (I < N && IsIdent(Text[I]))
      ++I;
    llvm::StringRef Word = Text.slice(Start, I);
    if (OpenCL ? (Word == "__kernel" || Word == "kernel")
               : Word == "__global__")
      return true;
  }
  return false;
}

std::vector<std::string>
parseFlagsOfCommand(const std::vector<std::string> &CommandLine,
                    llvm::StringRef Directory, bool OpenCL) {
  auto Absolute = [&](llvm::StringRef P) {
    if (P.empty() || llvm::sys::path::is_absolute(P))
      return P.str();
    llvm::SmallString<256> A(Directory);
    llvm::sys::path::append(A, P);
    llvm::sys::path::remove_dots(A, /*remove_dot_dot=*/true);
    return std::string(A);
  };
  std::vector<std::string> Flags;
  for (size_t I = 1; I < CommandLine.size(); ++I) {
    llvm::StringRef A = CommandLine[I];
    // The value of a flag, joined ("-Idir", "--std=c++17") or the next
    // argument ("-I dir").
    auto ValueOf = [&](llvm::StringRef Spelling, std::string &Value) -> bool {
      if (!A.startswith(Spelling))
        return false;
      llvm::StringRef Rest = A.drop_front(Spelling.size());
      bool Long = Spelling.startswith("--") || Spelling == "-std" ||
                  Spelling == "-cl-std" || Spelling == "-include" ||
                  Spelling == "-isystem";
      if (Long && Rest.consume_front("=")) {
        Value = Rest.str();
        return true;
      }
      if (!Rest.empty()) {
        // "-include" must not swallow "-includefoo"'s cousins such as
        // "-include-pch"; the long forms take a value only after '='.
        if (Long)
          return false;
        Value = Rest.str();
        return true;
      }
      if (I + 1 >= CommandLine.size())
        return false;
      Value = CommandLine[++I];
      return true;
    };
    std::string V;
    if (ValueOf("-isystem", V) || ValueOf("--include-path", V) ||
        ValueOf("-I", V))
      Flags.push_back("-I" + Absolute(V));
    else if (ValueOf("--define-macro", V) || ValueOf("-D", V))
      Flags.push_back("-D" + V);
    else if (ValueOf("--undefine-macro", V) || ValueOf("-U", V))
      Flags.push_back("-U" + V);
    else if (ValueOf("--pre-include", V) || ValueOf("-include", V)) {
      Flags.push_back("-include");
      Flags.push_back(Absolute(V));
    } else if (OpenCL ? ValueOf("-cl-std", V)
                      : (ValueOf("--std", V) || ValueOf("-std", V)))
      Flags.push_back((OpenCL ? "-cl-std=" : "-std=") + V);
  }
  return Flags;
}

llvm::Expected<BatchInputs> collectBatchInputs(const DriverOptions &Opts) {
  if (Opts.OutDir.empty() && !Opts.Analyze)
    return usage("a batch (a directory or -p) needs --out-dir=DIR: its "
                 "outputs are written there as a mirrored tree, never beside "
                 "the inputs");
  std::string OutCanon = Opts.OutDir.empty() ? "" : canonical(Opts.OutDir);

  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
  if (!Opts.CompileCommands.empty()) {
    auto Loaded = loadDatabase(Opts.CompileCommands);
    if (!Loaded)
      return Loaded.takeError();
    DB = std::move(*Loaded);
  }

  // What is looked at, before the kernel check and the filter.
  std::vector<Candidate> Seen;
  for (const std::string &In : Opts.Inputs) {
    if (!llvm::sys::fs::is_directory(In)) {
      // Named: taken whatever it holds (an unreadable one is reported by
      // its own run); outputs directly under --out-dir, as without a batch.
      Seen.push_back(
          {In, std::string(llvm::sys::path::filename(In)), /*Named=*/true});
      continue;
    }
    std::string DirCanon = canonical(In);
    if (!OutCanon.empty() && isWithin(OutCanon, DirCanon))
      return usage(llvm::formatv(
          "--out-dir '{0}' is {1} the input directory '{2}': the outputs "
          "would land among the inputs, and a later run would take them as "
          "inputs; choose a directory outside it",
          Opts.OutDir, OutCanon == DirCanon ? "" : "inside", In));
    walk(In, Seen);
  }
  if (DB && Opts.Inputs.empty()) {
    // The database's own files, mirrored under the directory common to them.
    std::vector<std::string> Files;
    for (const std::string &F : DB->getAllFiles())
      if (isSourceExtension(F))
        Files.push_back(canonical(F));
    llvm::sort(Files);
    Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
    std::string Root = commonDirectory(Files);
    for (const std::string &F : Files)
      Seen.push_back({displayPath(F),
                      llvm::StringRef(F).drop_front(Root.size() + 1).str(),
                      /*Named=*/false});
  }

  // One file reached twice (named and inside a directory, two overlapping
  // directories) runs once: its first sighting in sorted order wins.
  llvm::sort(Seen, [](const Candidate &A, const Candidate &B) {
    return A.Path < B.Path;
  });
  std::vector<llvm::GlobPattern> Globs;
  for (const std::string &G : Opts.FileGlobs) {
    auto P = llvm::GlobPattern::create(G);
    if (!P)
      return usage("--files: bad pattern '" + G +
                   "': " + llvm::toString(P.takeError()));
    Globs.push_back(std::move(*P));
  }
  BatchInputs Result;
  llvm::StringSet<> Done;
  for (const Candidate &C : Seen) {
    if (!Done.insert(canonical(C.Path)).second)
      continue;
    if (!Globs.empty() && !llvm::any_of(Globs, [&](const llvm::GlobPattern &G) {
          return G.match(C.Path) || G.match(C.Relative);
        })) {
      Result.Left.push_back({C.Path, "not matched by --files"});
      continue;
    }
    bool OpenCL = languageOfFile(C.Path) == Language::OpenCL;
    if (!C.Named) {
      auto Text = llvm::MemoryBuffer::getFile(C.Path);
      // An unreadable file is taken: its run says why it failed.
      if (Text && !definesKernel((*Text)->getBuffer(), OpenCL)) {
        Result.Left.push_back({C.Path, "no kernel in it"});
        continue;
      }
    }
    BatchFile F;
    F.Path = C.Path;
    F.Relative = C.Relative;
    llvm::SmallString<256> Out(Opts.OutDir);
    llvm::sys::path::append(Out, llvm::sys::path::parent_path(C.Relative));
    F.OutDir = std::string(Out);
    if (DB) {
      std::vector<clang::tooling::CompileCommand> Commands =
          DB->getCompileCommands(canonical(C.Path));
      if (!Commands.empty())
        F.ClangArgs = parseFlagsOfCommand(Commands.front().CommandLine,
                                          Commands.front().Directory, OpenCL);
    }
    Result.Files.push_back(std::move(F));
  }

  // Outputs must land on no input and on no other file's outputs: the files
  // involved are refused, the others run.
  if (Opts.Analyze)
    return Result;
  std::map<std::string, std::string> InputOf; // canonical input → its path
  for (const BatchFile &F : Result.Files)
    InputOf[canonical(F.Path)] = F.Path;
  std::map<std::string, std::vector<size_t>> Writers; // output → files
  for (size_t I = 0; I < Result.Files.size(); ++I) {
    const BatchFile &F = Result.Files[I];
    Language L = Opts.OutputLang.value_or(languageOfFile(F.Path));
    llvm::StringRef Stem = llvm::sys::path::stem(F.Path);
    std::vector<std::string> Variants;
    if (Opts.Memory != "texture")
      Variants.push_back("global");
    if (Opts.Memory != "global")
      Variants.push_back("texture");
    for (const std::string &V : Variants)
      for (llvm::StringRef Ext : L == Language::OpenCL
                                     ? std::vector<llvm::StringRef>{".cl", ".h"}
                                     : std::vector<llvm::StringRef>{".cu"}) {
        llvm::SmallString<256> P(F.OutDir);
        llvm::sys::path::append(P, Stem + "." + V + Ext);
        Writers[canonical(P)].push_back(I);
      }
  }
  for (auto &[Path, Files] : Writers) {
    if (auto In = InputOf.find(Path); In != InputOf.end())
      for (size_t I : Files)
        if (Result.Files[I].Refused.empty())
          Result.Files[I].Refused = "its output '" + displayPath(Path) +
                                    "' would overwrite the input '" +
                                    In->second + "'";
    if (Files.size() < 2)
      continue;
    for (size_t I : Files) {
      if (!Result.Files[I].Refused.empty())
        continue;
      std::vector<std::string> Others;
      for (size_t J : Files)
        if (J != I)
          Others.push_back("'" + Result.Files[J].Path + "'");
      Result.Files[I].Refused =
          "its output '" + displayPath(Path) + "' is also the output of " +
          llvm::join(Others, ", ") +
          " (same name, same directory); run them apart or rename one";
    }
  }
  return Result;
}

} // namespace gpumerge

//===- Driver.cpp - Options, exit codes and one file's run ----------------===//
//
// The small pieces of the command that the rest share: --size and --grid
// parsing, the ranking of exit codes, writing a file whole or not at all,
// and runFile, which hands one input to a FileJob (FileJob.h). runDriver,
// which sequences the files, is in RunDriver.cpp.
//
//===----------------------------------------------------------------------===//
#include "Driver/Driver.h"
#include "Driver/FileJob.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"

namespace gpumerge {

bool parseSizes(llvm::StringRef Spec, SizeBindings &Sizes, std::string &Bad) {
  llvm::SmallVector<llvm::StringRef, 8> Items;
  Spec.split(Items, ',', -1, false);
  for (llvm::StringRef Item : Items) {
    auto [Name, Value] = Item.split('=');
    std::int64_t V;
    if (Name.trim().empty() || Value.trim().getAsInteger(10, V) || V <= 0) {
      Bad = Item.str();
      return false;
    }
    Sizes[Name.trim().str()] = V;
  }
  return true;
}

int worseExit(int A, int B) {
  auto Rank = [](int C) {
    switch (C) {
    case ExitOk:
      return 0;
    case ExitInternal:
      return 1;
    case ExitBadInput:
      return 2;
    case ExitUsage:
      return 3;
    case ExitMismatch:
      return 5;
    default:
      return 4; // a code of someone else's (a signal, a tool)
    }
  };
  return Rank(A) >= Rank(B) ? A : B;
}

bool parseGrid(llvm::StringRef Spec, std::array<std::int64_t, 2> &Grid) {
  auto [X, Y] = Spec.split(',');
  Grid = {1, 1};
  if (X.trim().getAsInteger(10, Grid[0]) || Grid[0] <= 0)
    return false;
  if (!Y.empty() && (Y.trim().getAsInteger(10, Grid[1]) || Grid[1] <= 0))
    return false;
  return true;
}

llvm::Error writeFileAtomically(const std::string &Path,
                                const std::string &Text) {
  // A device or pipe (-o /dev/null, /dev/stdout) is written as it is: a
  // rename would replace it with a file.
  llvm::sys::fs::file_status Status;
  if (!llvm::sys::fs::status(Path, Status) && llvm::sys::fs::exists(Status) &&
      Status.type() != llvm::sys::fs::file_type::regular_file &&
      Status.type() != llvm::sys::fs::file_type::directory_file) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (!EC)
      OS << Text;
    if (EC || OS.has_error())
      return llvm::createStringError(EC ? EC : OS.error(), "cannot write '%s'",
                                     Path.c_str());
    return llvm::Error::success();
  }
  llvm::SmallString<256> Temp;
  int FD;
  std::string Model = Path + ".tmp-%%%%%%";
  if (auto EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp))
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      llvm::sys::fs::remove(Temp);
      return llvm::createStringError(OS.error(), "cannot write '%s'",
                                     Path.c_str());
    }
  }
  if (auto EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  }
  return llvm::Error::success();
}

int runFile(const DriverOptions &Opts, const MachineDescription &MD,
            const std::string &Input, llvm::json::Array &ReportFiles,
            llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  return FileJob(Opts, MD, Input, Out, Err).run(ReportFiles);
}

} // namespace gpumerge

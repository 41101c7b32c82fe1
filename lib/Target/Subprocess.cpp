//===- Subprocess.cpp - Running the vendor's tools ------------------------===//

#include "Target/Subprocess.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <sys/wait.h>
#include <thread>

// ExecuteAndWait's own time limit arms alarm(), one per process: batch
// workers (-j) running nvcc at once would cancel each other's, and the
// SIGALRM may reach a thread other than the waiting one, which then waits
// without a limit. Polling needs no signal.
int gpumerge::runWithDeadline(
    llvm::StringRef Program, llvm::ArrayRef<llvm::StringRef> Args,
    llvm::ArrayRef<std::optional<llvm::StringRef>> Redirects, unsigned Seconds,
    std::string &ErrMsg, bool &ExecFailed) {
  llvm::sys::ProcessInfo PI = llvm::sys::ExecuteNoWait(
      Program, Args, std::nullopt, Redirects, 0, &ErrMsg, &ExecFailed);
  if (ExecFailed || PI.Pid <= 0) {
    ExecFailed = true;
    return -1;
  }
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(Seconds);
  for (;;) {
    int Status = 0;
    pid_t Done = ::waitpid(PI.Pid, &Status, WNOHANG);
    if (Done == PI.Pid) {
      if (WIFEXITED(Status))
        return WEXITSTATUS(Status);
      ErrMsg = "crashed with signal " + std::to_string(WTERMSIG(Status)) +
               " (" + ::strsignal(WTERMSIG(Status)) + ")";
      return -2;
    }
    if (Done < 0 && errno != EINTR) {
      ErrMsg = std::string("cannot wait for it: ") + std::strerror(errno);
      return -2;
    }
    if (std::chrono::steady_clock::now() >= Deadline) {
      ::kill(PI.Pid, SIGKILL);
      while (::waitpid(PI.Pid, &Status, 0) < 0 && errno == EINTR)
        ;
      ErrMsg = "timed out after " + std::to_string(Seconds) + " s";
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::optional<gpumerge::ScratchDir>
gpumerge::ScratchDir::create(llvm::StringRef Prefix, std::string &Why) {
  ScratchDir D;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueDirectory(Prefix, D.Dir)) {
    Why = "cannot create a temporary directory: " + EC.message();
    return std::nullopt;
  }
  return D;
}

gpumerge::ScratchDir::~ScratchDir() {
  if (!Dir.empty())
    llvm::sys::fs::remove_directories(Dir);
}

std::string gpumerge::ScratchDir::path(llvm::StringRef Name) const {
  llvm::SmallString<128> P(Dir);
  llvm::sys::path::append(P, Name);
  return std::string(P);
}

std::string gpumerge::ScratchDir::prefix() const {
  return (Dir + llvm::sys::path::get_separator()).str();
}

//===- Isolate.cpp - Run device code where it cannot hurt gpumerge --------===//
#include "Runtime/Isolate.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpumerge {

unsigned verifyTimeoutSeconds() {
  if (const char *V = std::getenv("GPUMERGE_VERIFY_TIMEOUT")) {
    char *End;
    unsigned long S = std::strtoul(V, &End, 10);
    if (*V && !*End && S > 0)
      return unsigned(S);
  }
  return 120;
}

static llvm::Error failure(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why.str());
}

/// Writes all of \p Text to \p FD; false when the pipe broke.
static bool writeAll(int FD, const std::string &Text) {
  size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = ::write(FD, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += size_t(N);
  }
  return true;
}

bool tooSlowToCallAHang(unsigned TimeoutSeconds, double ReferenceSeconds) {
  return TimeoutSeconds - ReferenceSeconds < 3 * ReferenceSeconds + 1;
}

std::mutex &streamsAndForkMutex() {
  static std::mutex M;
  return M;
}

llvm::Error runIsolated(llvm::function_ref<void(SendFn)> Work,
                        unsigned TimeoutSeconds, std::string &Output,
                        LineFn OnLine) {
  // One child at a time (a batch verifies from several threads): the child
  // of a fork without exec runs the OpenCL loader and PoCL, which must not
  // find another child's setup half done in the memory it copied.
  static std::mutex OneAtATime;
  std::lock_guard<std::mutex> Serial(OneAtATime);
  int Pipe[2];
  Output.clear();
  // Close-on-exec: a program another thread starts meanwhile (nvcc for
  // ptxas under -j) must not hold the write end open, or the end of the
  // child's output would wait for that program too.
  if (::pipe2(Pipe, O_CLOEXEC) != 0)
    return failure(
        llvm::formatv("cannot create a pipe: {0}", std::strerror(errno)));
  pid_t Child;
  {
    std::lock_guard<std::mutex> Streams(streamsAndForkMutex());
    // What is buffered now would otherwise be written twice.
    llvm::outs().flush();
    llvm::errs().flush();
    std::fflush(nullptr);
    Child = ::fork();
  }
  if (Child < 0) {
    int E = errno;
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    return failure(
        llvm::formatv("cannot start a process: {0}", std::strerror(E)));
  }
  if (Child == 0) {
    ::close(Pipe[0]);
    bool Broken = false;
    Work([&](llvm::StringRef Text) {
      Broken |= !writeAll(Pipe[1], Text.str());
    });
    // _exit: no destructors or atexit handlers of the parent's state.
    ::_exit(Broken ? 1 : 0);
  }
  ::close(Pipe[1]);

  std::string &Result = Output;
  Result.clear();
  bool TimedOut = false;
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(TimeoutSeconds);
  char Buffer[65536];
  for (;;) {
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    Deadline - std::chrono::steady_clock::now())
                    .count();
    if (Left <= 0) {
      TimedOut = true;
      break;
    }
    struct pollfd P = {Pipe[0], POLLIN, 0};
    int Ready = ::poll(&P, 1, int(std::min<long long>(Left, 1 << 30)));
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready < 0)
      break;
    if (Ready == 0)
      continue; // the deadline is checked above
    ssize_t N = ::read(Pipe[0], Buffer, sizeof(Buffer));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break; // end of file: the child is done (or gone)
    size_t Seen = Result.size();
    Result.append(Buffer, size_t(N));
    if (!OnLine)
      continue;
    // The lines this read completed: from the end of the last whole one.
    size_t From = Result.rfind('\n', Seen ? Seen - 1 : 0);
    From = From == std::string::npos || !Seen ? 0 : From + 1;
    for (size_t End = Result.find('\n', From); End != std::string::npos;
         From = End + 1, End = Result.find('\n', From))
      if (OnLine(llvm::StringRef(Result).slice(From, End)))
        Deadline = std::chrono::steady_clock::now() +
                   std::chrono::seconds(TimeoutSeconds);
  }
  ::close(Pipe[0]);
  if (TimedOut)
    ::kill(Child, SIGKILL);
  int Status = 0;
  while (::waitpid(Child, &Status, 0) < 0 && errno == EINTR)
    ;
  if (TimedOut)
    return failure(llvm::formatv("it did not finish within {0} s and was "
                                 "stopped (a kernel that does not terminate?"
                                 " GPUMERGE_VERIFY_TIMEOUT sets the limit)",
                                 TimeoutSeconds));
  if (WIFSIGNALED(Status))
    return failure(llvm::formatv("it crashed with signal {0} ({1}) while "
                                 "running the kernels on the device",
                                 WTERMSIG(Status),
                                 ::strsignal(WTERMSIG(Status))));
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
    return failure(llvm::formatv("the process running the kernels exited "
                                 "with status {0}",
                                 WEXITSTATUS(Status)));
  return llvm::Error::success();
}

} // namespace gpumerge

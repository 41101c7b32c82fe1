//===- Toolkit.cpp - The CUDA toolkit as nvcc shows it to a file ----------===//
#include "Frontend/Toolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>

namespace gpumerge {

std::string findCudaPath() {
  if (auto Nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> P(*Nvcc);
    llvm::sys::fs::real_path(*Nvcc, P);
    llvm::sys::path::remove_filename(P); // bin
    llvm::sys::path::remove_filename(P);
    if (llvm::sys::fs::exists(P + "/include/cuda_runtime.h"))
      return std::string(P);
  }
  if (llvm::sys::fs::exists("/usr/local/cuda/include/cuda_runtime.h"))
    return "/usr/local/cuda";
  return "";
}

std::optional<CudaVersion> parseNvccVersion(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 4> M;
  if (!llvm::Regex("release [0-9.]+, V([0-9]+)\\.([0-9]+)\\.([0-9]+)")
           .match(Text, &M))
    return std::nullopt;
  CudaVersion V;
  int Build = 0;
  if (M[1].getAsInteger(10, V.Major) || M[2].getAsInteger(10, V.Minor) ||
      M[3].getAsInteger(10, Build))
    return std::nullopt;
  V.Build = Build;
  return V;
}

std::optional<CudaVersion> parseCudaHeaderVersion(llvm::StringRef CudaH) {
  llvm::SmallVector<llvm::StringRef, 2> M;
  int N = 0;
  if (!llvm::Regex("#define[ \t]+CUDA_VERSION[ \t]+([0-9]+)")
           .match(CudaH, &M) ||
      M[1].getAsInteger(10, N) || N <= 0)
    return std::nullopt;
  CudaVersion V;
  V.Major = N / 1000;
  V.Minor = N % 1000 / 10;
  return V;
}

/// `nvcc --version`, when nvcc is under \p CudaPath.
static std::optional<std::string> nvccVersionText(const std::string &CudaPath) {
  std::string Nvcc = CudaPath + "/bin/nvcc";
  if (!llvm::sys::fs::can_execute(Nvcc))
    return std::nullopt;
  llvm::SmallString<128> Out;
  if (llvm::sys::fs::createTemporaryFile("gpumerge-nvcc-version", "txt", Out))
    return std::nullopt;
  llvm::StringRef OutRef(Out);
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), OutRef,
                                                llvm::StringRef("")};
  llvm::StringRef Args[] = {Nvcc, "--version"};
  int RC = llvm::sys::ExecuteAndWait(Nvcc, Args, std::nullopt, Redirects);
  std::optional<std::string> Text;
  if (RC == 0)
    if (auto Buf = llvm::MemoryBuffer::getFile(Out))
      Text = (*Buf)->getBuffer().str();
  llvm::sys::fs::remove(Out);
  return Text;
}

const std::vector<std::string> &nvccParseArgs(const std::string &CudaPath) {
  static std::mutex Lock;
  static std::map<std::string, std::vector<std::string>> Known;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, New] = Known.try_emplace(CudaPath);
  if (!New)
    return It->second;
  std::vector<std::string> &Args = It->second;
  if (llvm::sys::fs::is_directory(CudaPath + "/include/cccl"))
    Args.insert(Args.end(), {"-isystem", CudaPath + "/include/cccl"});
  Args.insert(Args.end(), {"-Xclang", "-fcuda-allow-variadic-functions"});
  std::optional<CudaVersion> V;
  if (std::optional<std::string> Text = nvccVersionText(CudaPath))
    V = parseNvccVersion(*Text);
  if (!V)
    if (auto Buf = llvm::MemoryBuffer::getFile(CudaPath + "/include/cuda.h"))
      V = parseCudaHeaderVersion((*Buf)->getBuffer());
  if (V) {
    Args.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(V->Major));
    Args.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(V->Minor));
    if (V->Build)
      Args.push_back("-D__CUDACC_VER_BUILD__=" + std::to_string(*V->Build));
  }
  return Args;
}

bool nvccCompiles(const std::string &CudaPath, const std::string &Source,
                  const std::string &FileName,
                  const std::vector<std::string> &ParseArgs) {
  std::string Nvcc = CudaPath + "/bin/nvcc";
  if (CudaPath.empty() || !llvm::sys::fs::can_execute(Nvcc))
    return false;
  llvm::SmallString<128> Copy;
  int FD = -1;
  if (llvm::sys::fs::createTemporaryFile("gpumerge-nvcc-check", "cu", FD, Copy))
    return false;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Source;
  }
  llvm::SmallString<256> Dir(FileName);
  llvm::sys::fs::make_absolute(Dir);
  llvm::sys::path::remove_filename(Dir);
  std::vector<std::string> Args = {Nvcc,
                                   "-ptx",
                                   "-rdc=true",
                                   "-arch=sm_90",
                                   "-x",
                                   "cu",
                                   "-I" + std::string(Dir)};
  // The parse's flags a compile of the file takes too (gpumerge's own
  // -Xclang and -W ones are not nvcc's).
  for (size_t I = 0; I < ParseArgs.size(); ++I) {
    llvm::StringRef A = ParseArgs[I];
    bool Separate = A == "-I" || A == "-D" || A == "-U" || A == "-include" ||
                    A == "-isystem";
    if (Separate && I + 1 < ParseArgs.size()) {
      Args.push_back(ParseArgs[I]);
      Args.push_back(ParseArgs[++I]);
    } else if (A.startswith("-I") || A.startswith("-D") || A.startswith("-U") ||
               A.startswith("-std=") || A.startswith("-isystem")) {
      Args.push_back(ParseArgs[I]);
    }
  }
  Args.insert(Args.end(), {"-o", "/dev/null", std::string(Copy)});
  std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Quiet[] = {
      llvm::StringRef(""), llvm::StringRef(""), llvm::StringRef("")};
  int RC = llvm::sys::ExecuteAndWait(Nvcc, Refs, std::nullopt, Quiet,
                                     /*SecondsToWait=*/120);
  llvm::sys::fs::remove(Copy);
  return RC == 0;
}

} // namespace gpumerge

//===- Toolkit.cpp - The CUDA toolkit as nvcc shows it to a file ----------===//
#include "Frontend/Toolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

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

} // namespace gpumerge

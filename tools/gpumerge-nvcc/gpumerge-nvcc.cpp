//===- gpumerge-nvcc.cpp - nvcc with gpumerge in front --------------------===//
//
// Thin: the whole behaviour is nvcc::runDropIn (lib/Nvcc/DropIn.h). Use it
// where nvcc goes: CMAKE_CUDA_COMPILER=.../gpumerge-nvcc, NVCC=gpumerge-nvcc.
//
//===----------------------------------------------------------------------===//
#include "Nvcc/DropIn.h"

#include "llvm/Support/FileSystem.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  // No InitLLVM: it would add a stack-trace banner to nvcc's stderr on a
  // crash of ours, and nothing here parses LLVM options.
  std::string Self = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&main));
  std::vector<std::string> Args(argv + 1, argv + argc);
  return gpumerge::nvcc::runDropIn(Args, Self);
}

//===- TestKernels.h - Parsing kernels for the unit tests -------*- C++ -*-===//
//
// The corpus in kernels/ and small sources written in a test, parsed with
// the frontend; a parse failure is a test failure (and a null module). The
// shipped machine descriptions, loaded.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TEST_UNIT_TESTKERNELS_H
#define GPUMERGE_TEST_UNIT_TESTKERNELS_H

#include "Frontend/Frontend.h"
#include "Target/MachineDescription.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

namespace gpumerge {

/// The guarded matrix product the launcher, verify and launch-condition
/// tests share: c = a * b, one element a thread, w x h outputs, k deep.
inline constexpr const char *GuardedMMSource = R"(
__global__ void mm(const float *a, const float *b, float *c, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}
)";

/// kernels/<Name>, parsed.
inline std::unique_ptr<Module> parseKernelFile(const std::string &Name) {
  auto M = parseFile(std::string(GPUMERGE_SOURCE_DIR) + "/kernels/" + Name, {});
  if (!M) {
    ADD_FAILURE() << Name << ": " << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

/// \p Source as a CUDA file, parsed.
inline std::unique_ptr<Module> parseText(const std::string &Source) {
  auto M = parseSource(Source, "x.cu", {});
  if (!M) {
    ADD_FAILURE() << "parse failed: " << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

/// machine-descriptions/<Name>.yaml, loaded (an empty description, and a
/// test failure, when it does not load).
inline MachineDescription shippedTarget(const std::string &Name) {
  auto MD = loadTarget(Name, defaultTargetsDir());
  if (!MD) {
    ADD_FAILURE() << Name << ": " << llvm::toString(MD.takeError());
    return MachineDescription();
  }
  return *MD;
}

} // namespace gpumerge

#endif

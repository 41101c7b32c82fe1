// saxpy_app: a whole CUDA program around a naive saxpy kernel
// (y = alpha * x + y, one thread per element). main() runs the kernel twice:
// once with kernel<<<grid, block>>>(...) on the default stream and once with
// kernel<<<grid, block, 0, stream>>>(...) on a created stream, checks both
// against a CPU result and prints PASSED (exit 0) or FAILED (exit 1).
// Build: nvcc -arch=sm_80 kernels/saxpy_app.cu -o app
// launch: block (256), grid (ceil(n/256))
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(err_));                                  \
      std::printf("FAILED\n");                                                 \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#pragma gpumerge size(n=16777216)
#pragma gpumerge output(y)
__global__ void saxpy(int n, float alpha, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

static bool close_enough(const std::vector<float> &got,
                         const std::vector<float> &want) {
  for (size_t i = 0; i < want.size(); i++)
    if (std::fabs(got[i] - want[i]) > 1e-5f * (1.0f + std::fabs(want[i]))) {
      std::fprintf(stderr, "mismatch at %zu: %g vs %g\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000003; // not a multiple of 256
  if (n <= 0)
    n = 1000003;
  const float alpha = 2.5f;
  std::vector<float> x(n), y(n), want(n), got(n);
  unsigned seed = 12345u;
  for (int i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (seed >> 8) * (1.0f / 16777216.0f);
    seed = seed * 1664525u + 1013904223u;
    y[i] = (seed >> 8) * (1.0f / 16777216.0f) - 0.5f;
  }

  float *dx = nullptr, *dy = nullptr;
  size_t bytes = size_t(n) * sizeof(float);
  CHECK(cudaMalloc(&dx, bytes));
  CHECK(cudaMalloc(&dy, bytes));
  CHECK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(256);
  dim3 grid((n + block.x - 1) / block.x);

  // Launch 1: default stream, two-argument configuration.
  saxpy<<<grid, block>>>(n, alpha, dx, dy);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), dy, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    want[i] = alpha * x[i] + y[i];
  bool ok = close_enough(got, want);

  // Launch 2: on a stream, four-argument configuration (y updated again).
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  saxpy<<<grid, block, 0, stream>>>(n, alpha, dx, dy);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(got.data(), dy, bytes, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < n; i++)
    want[i] = alpha * x[i] + want[i];
  ok = ok && close_enough(got, want);

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  std::printf(ok ? "PASSED\n" : "FAILED\n");
  return ok ? 0 : 1;
}

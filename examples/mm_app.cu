// mm_app: a whole CUDA program around the naive matrix multiply. main() runs
// it at two sizes: 1024 x 1024 x 512 (whole tiles, so after gpumerge the
// optimized kernel runs) and 1000 x 1003 x 77 (not multiples of 16, so the
// generated launcher falls back to the original kernel), checks both against
// a CPU result and prints PASSED (exit 0) or FAILED (exit 1).
// Build: nvcc -arch=sm_90 examples/mm_app.cu -o mm_app
// Optimize: gpumerge --target=h100 --memory=global examples/mm_app.cu -o mm_app.opt.cu
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#pragma gpumerge size(w=4096, h=4096, k=4096)
#pragma gpumerge output(c)
__global__ void mm(const float *a, const float *b, float *c, int w, int h,
                   int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    c[y * w + x] = sum;
  }
}

static bool run(int w, int h, int k) {
  std::vector<float> a(size_t(h) * k), b(size_t(k) * w), c(size_t(h) * w);
  unsigned s = 12345u;
  auto next = [&s] {
    s = s * 1664525u + 1013904223u;
    return float(s >> 8) / float(1u << 24) - 0.5f;
  };
  for (float &v : a)
    v = next();
  for (float &v : b)
    v = next();
  float *da, *db, *dc;
  if (cudaMalloc(&da, a.size() * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&db, b.size() * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dc, c.size() * sizeof(float)) != cudaSuccess) {
    std::printf("cudaMalloc failed\n");
    return false;
  }
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  mm<<<grid, block>>>(da, db, dc, w, h, k);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::printf("mm %dx%dx%d: %s\n", w, h, k, cudaGetErrorString(err));
    return false;
  }
  cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  double worst = 0;
  for (int y = 0; y < h; y += 7)
    for (int x = 0; x < w; x += 5) {
      double ref = 0;
      for (int i = 0; i < k; i++)
        ref += double(a[size_t(y) * k + i]) * b[size_t(i) * w + x];
      double e = std::fabs(ref - c[size_t(y) * w + x]) / (1 + std::fabs(ref));
      worst = e > worst ? e : worst;
    }
  std::printf("mm %dx%dx%d: max relative error %.2e\n", w, h, k, worst);
  return worst < 1e-4;
}

int main() {
  bool ok = run(1024, 1024, 512) && run(1000, 1003, 77);
  std::printf(ok ? "PASSED\n" : "FAILED\n");
  return ok ? 0 : 1;
}

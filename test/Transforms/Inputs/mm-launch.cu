// A host program for gpumerge's CUDA output of kernels/mm.cu (included as
// "mm.cu"): launches mm through gpumerge_launch_mm, with the naive launch of
// the input (block 16 x 16, grid ceil(w/16) x ceil(h/16)), at sizes where the
// launcher takes the optimized kernel and at sizes where it falls back, and
// compares with the CPU. Prints PASSED or FAILED; exit 1 on a mismatch.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "mm.cu"

static bool check(int w, int h, int k) {
  std::vector<float> A((size_t)h * k), B((size_t)k * w), C((size_t)h * w),
      R((size_t)h * w);
  unsigned s = 12345u + w + 7u * h + 13u * k;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) / 16777216.0f - 0.5f; };
  for (float &v : A) v = rnd();
  for (float &v : B) v = rnd();
  float *a, *b, *c;
  cudaMalloc(&a, A.size() * sizeof(float));
  cudaMalloc(&b, B.size() * sizeof(float));
  cudaMalloc(&c, C.size() * sizeof(float));
  cudaMemcpy(a, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(c, 0xff, C.size() * sizeof(float));
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  gpumerge_launch_mm(grid, block, 0, 0, a, b, c, w, h, k);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(C.data(), c, C.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  if (e != cudaSuccess) {
    std::printf("w=%d h=%d k=%d: %s\n", w, h, k, cudaGetErrorString(e));
    return false;
  }
  double worst = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double r = 0;
      for (int i = 0; i < k; ++i)
        r += (double)A[(size_t)y * k + i] * B[(size_t)i * w + x];
      double d = std::fabs(r - C[(size_t)y * w + x]) / (std::fabs(r) + 1e-3);
      if (!(d <= worst)) worst = d; // NaN (an unwritten element) sticks
    }
  bool ok = worst < 1e-4;
  std::printf("w=%d h=%d k=%d: max relative error %g %s\n", w, h, k, worst,
              ok ? "ok" : "MISMATCH");
  return ok;
}

int main() {
  bool ok = true;
  const int sizes[][3] = {{1024, 1024, 1024}, {512, 256, 96}, {1000, 1003, 77},
                          {1024, 1024, 77}, {131, 133, 135}, {256, 160, 160}};
  for (const auto &s : sizes)
    ok = check(s[0], s[1], s[2]) && ok;
  std::printf(ok ? "PASSED\n" : "FAILED\n");
  return ok ? 0 : 1;
}

// Device helpers of a header the kernels' file includes.
#ifndef HELPERS_H
#define HELPERS_H

namespace util {
__host__ __device__ inline float twice(float v) { return 2.0f * v; }
} // namespace util

// Reads the thread's position: merged threads would change its value.
__device__ inline float lane() { return (float)(threadIdx.x % 32); }

template <typename T> __device__ T laneOf() { return (T)(threadIdx.x % 32); }

// A loop gpumerge does not lower.
__device__ inline int steps(int n) {
  int s = 0;
  while (n > 1) {
    n = n / 2;
    s++;
  }
  return s;
}
#endif

// clang-format off
// Grid-stride loops: the ways CUDA code writes them, and the kernels whose
// iterations do not stand alone (which stay as written).
#include <cstdio>

__global__ void via_locals(int n, const float *x, float *y) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  const float k = 3.0f;
  for (int i = tid; i < n; i += stride)
    y[i] = k * x[i];
}

__global__ void declared_before(int n, const float *x, float *y) {
  int i;
  for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] + 1.0f;
}

__global__ void size_t_rows(size_t n, int m, const double *a, double *y) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double s = 0.0;
    for (int j = 0; j < m; ++j) {
      if (a[i * m + j] < 0.0) continue; // skips negative entries
      s += a[i * m + j];
    }
    y[i] = s;
  }
}

__global__ void inclusive(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x)
    y[i] = x[i] - 1.0f;
}

__global__ void partial_sums(int n, const float *x, float *out) {
  float s = 0.0f; // each thread's share, whatever the grid: kept as written
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += x[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void running(int n, const float *x, float *y) {
  float run = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    run = run + x[i];
    y[i] = run;
  }
}

__global__ void lane_offset(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] + threadIdx.x;
}

__global__ void stops(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] < 0.0f)
      break;
    y[i] = x[i];
  }
}

int main() {
  const int n = 1000;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  via_locals<<<132, 256>>>(n, x, y);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}

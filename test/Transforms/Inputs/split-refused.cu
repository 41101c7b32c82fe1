// Loops split-reduction leaves alone, each with its reason.
#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(out)
__global__ void prefix(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++) {
      s += a[i * m + j];
      out[i * m + j] = s;
    }
  }
}

#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(out)
__global__ void scaled(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 1.0f;
    for (int j = 0; j < m; j++)
      s *= a[i * m + j];
    out[i] = s;
  }
}

#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(out)
__global__ void readback(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += a[i * m + j] * s;
    out[i] = s;
  }
}

#pragma gpumerge size(n=1048576, m=64)
#pragma gpumerge output(out)
__global__ void wide(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += a[i * m + j];
    out[i] = s;
  }
}

#pragma gpumerge size(n=4096, m=16)
#pragma gpumerge output(out)
__global__ void shortrow(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += a[i * m + j];
    out[i] = s;
  }
}

#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(out)
__global__ void truncating(const float *a, int *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int s = 0;
    for (int j = 0; j < m; j++)
      s += a[i * m + j];
    out[i] = s;
  }
}

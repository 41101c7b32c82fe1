// Kernels with global barriers gpumerge cannot split, beside one it can.
#pragma gpumerge size(n=1000)
__global__ void live_across(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] * 2.0f : 0.0f;
  gpumerge_global_sync();
  if (i < n)
    out[i] = v + in[n - 1 - i];
}

#pragma gpumerge size(n=1000)
__global__ void in_if(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
    gpumerge_global_sync();
    out[i] += in[n - 1 - i];
  }
}

#pragma gpumerge size(n=1000)
__global__ void returns_early(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i];
  gpumerge_global_sync();
  out[i] += out[n - 1 - i];
}

#pragma gpumerge size(n=1000)
__global__ void in_loop(float *a, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int s = 0; s < steps; s++) {
    if (i < n)
      a[i] += 1.0f;
    gpumerge_global_sync();
  }
}

// Splits: m is recomputed in phase 1 from i and n, which nobody assigns.
#pragma gpumerge size(n=1000)
__global__ void reverse_add(const float *in, float *tmp, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int m = n - 1 - i;
  if (i < n)
    tmp[i] = in[i] * 2.0f;
  gpumerge_global_sync();
  if (i < n)
    out[i] = tmp[m] + 1.0f;
}

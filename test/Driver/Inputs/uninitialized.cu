// clang-format off
// lulesh's pattern: a local set only in a loop that may not run (rep, read
// from memory, may be 0), then stored.
__global__ void last(const float *x, const int *reps, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v;
    int rep = reps[i];
    for (int j = 0; j < rep; j++)
      v = x[i] * j;
    y[i] = v;
  }
}

// Set on every path: verified.
__global__ void both(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v;
    if (x[i] > 0.5f)
      v = x[i];
    else
      v = 1.0f - x[i];
    y[i] = v;
  }
}

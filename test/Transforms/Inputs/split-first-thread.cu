// One thread does the work (`if (t == 0)`), as in a solver's step that
// takes the norm of one column: no `#pragma gpumerge size`, since the
// domain is that thread at any size.
__global__ void colnorm(const float *a, float *norm, int rows, int cols,
                        int c) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0) {
    float s = 0.0f;
    for (int r = 0; r < rows; r++)
      s += a[r * cols + c] * a[r * cols + c];
    norm[c] = sqrtf(s);
  }
}

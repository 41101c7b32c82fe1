// One thread does the work (`if (t == 0)`), with size hints that make its
// loop too short to split among lanes: a column of 45 rows.
#pragma gpumerge size(rows=45, cols=53, c=5)
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

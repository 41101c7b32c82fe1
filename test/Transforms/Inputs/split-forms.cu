// The sum's other spellings: a start value read from memory after an element
// store, `s = s - e`, `s = e + s`, an integer sum, `<=`, an inner branch and
// a local of the loop.
#pragma gpumerge size(n=2048, m=4096)
#pragma gpumerge output(out, cnt)
__global__ void forms(const float *a, const float *b, float *out, int *cnt,
                      int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = b[i] * 0.5f;
    float s = out[i];
    float t = 1.0f;
    int c = 0;
    float scale = b[i] + 2.0f;
    for (int j = 1; j <= m - 1; j++) {
      float v = a[i * m + j] * scale;
      if (v > 0.25f) {
        s = s - v;
        c = 1 + c;
      } else {
        t = v + t;
      }
    }
    out[i] = s * t;
    cnt[i] = c;
  }
}

// A sum updated in an inner loop: a window of three elements per step.
#pragma gpumerge size(n=2048, m=4096)
#pragma gpumerge output(out)
__global__ void window(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      for (int d = 0; d < 3; d++)
        s += a[i * (m + 2) + j + d];
    out[i] = s;
  }
}

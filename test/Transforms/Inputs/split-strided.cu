// split-reduction beyond the unit step: a loop striding by the guard's
// bound (rd's first phase), a constant step, one output (rd's second
// phase), and a step that may not be positive (refused).
#pragma gpumerge size(n=16777216, nt=4096)
#pragma gpumerge output(partial)
__global__ void chunks(const float *in, float *partial, int n, int nt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nt) {
    float sum = 0.0f;
    for (int j = i; j < n; j += nt)
      sum += in[j];
    partial[i] = sum;
  }
}

#pragma gpumerge size(n=4096, m=4096)
#pragma gpumerge output(out)
__global__ void evens(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j += 2)
      s += a[i * m + j];
    out[i] = s;
  }
}

#pragma gpumerge size(nt=4096)
#pragma gpumerge output(out)
__global__ void total(const float *partial, float *out, int nt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    float t = 1.0f;
    for (int j = 0; j < nt; j++)
      t += partial[j];
    out[0] = t;
  }
}

#pragma gpumerge size(n=16777216, nt=4096, s=4096)
#pragma gpumerge output(partial)
__global__ void anystep(const float *in, float *partial, int n, int nt, int s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nt) {
    float sum = 0.0f;
    for (int j = i; j < n; j += s)
      sum += in[j];
    partial[i] = sum;
  }
}

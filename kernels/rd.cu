// rd: sum reduction of n floats, out[0] = sum_j in[j], with a global barrier.
// Phase 1: each of nt threads sums the strided chunk in[i], in[i+nt], ...
// into partial[i]. gpumerge_global_sync() is a global barrier: the compiler
// splits the kernel into two launches there. Phase 2: thread 0 sums the nt
// partials into out[0].
// launch: block (256), grid (ceil(nt/256)); nt = number of partial sums
// Declared, never defined: a hint to gpumerge (nvcc needs -rdc=true).
__device__ void gpumerge_global_sync();

#pragma gpumerge size(n=16777216, nt=4096)
#pragma gpumerge output(out)
__global__ void rd(const float *in, float *partial, float *out, int n, int nt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nt) {
    float sum = 0.0f;
    for (int j = i; j < n; j += nt)
      sum += in[j];
    partial[i] = sum;
  }
  gpumerge_global_sync();
  if (i == 0) {
    float total = 0.0f;
    for (int j = 0; j < nt; j++)
      total += partial[j];
    out[0] = total;
  }
}

// rd: sum reduction of n floats, out[0] = sum_j in[j], with a global barrier.
// Phase 1: each of nt work-items sums the strided chunk in[i], in[i+nt], ...
// into partial[i]. gpumerge_global_sync() is a global barrier: the compiler
// splits the kernel into two launches there. Phase 2: work-item 0 sums the
// nt partials into out[0].
// launch: global (nt) rounded up to a multiple of local (256)
// Declared, never defined: a hint to gpumerge.
void gpumerge_global_sync(void);

#pragma gpumerge size(n=16777216, nt=4096)
#pragma gpumerge output(out)
__kernel void rd(__global const float *in, __global float *partial,
                 __global float *out, int n, int nt) {
  int i = get_global_id(0);
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

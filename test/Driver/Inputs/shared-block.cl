// clang-format off
// A block of at most 64 threads: t is indexed by the thread's position.
#pragma gpumerge size(n=65536)
#pragma gpumerge output(y)
__kernel void blocksum(__global const float *x, __global float *y, int n) {
  __local float t[64];
  int i = get_global_id(0);
  int l = get_local_id(0);
  t[l] = i < n ? x[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < l + 1; k++)
      s += t[k];
    y[i] = s;
  }
}

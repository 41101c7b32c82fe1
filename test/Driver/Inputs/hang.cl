// Each thread walks a with step s - 1: s = 1 never ends.
__kernel void walk(__global const float *a, __global float *c, int n, int s) {
  int i = get_global_id(0);
  if (i < n) {
    float sum = 0.0f;
    for (int j = 0; j < n; j += s - 1)
      sum += a[j];
    c[i] = sum;
  }
}

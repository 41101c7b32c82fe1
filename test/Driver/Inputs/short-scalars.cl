// Scalar parameters narrower than int: their arguments take their bytes.
__kernel void addk(__global const float *a, __global float *c, int n, short k, uchar m) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + k * m;
}

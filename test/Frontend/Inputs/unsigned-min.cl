// min of a uint and an unsigned literal: without the U the call is
// ambiguous (uint, int) and the program does not build.
__kernel void clampk(__global const uint *a, __global uint *b, int n) {
  int i = get_global_id(0);
  if (i < n)
    b[i] = min(a[i], 255U);
}

#include "defs.h"
__kernel void sc(__global const float *a, __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] * SCALE;
}

// OpenCL kernels calling helpers of an included header.
#include "cl-helpers.h"
__kernel void mm(__global const float *a, __global const float *b, __global float *c, int w) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < w) {
    float s = lanef();
    for (int k = 0; k < w; k++)
      s += a[y * w + k] * b[k * w + x];
    c[y * w + x] = twice(s);
  }
}
__kernel void mm2(__global const float *a, __global const float *b, __global float *c, int w) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < w) {
    float s = 0.0f;
    for (int k = 0; k < w; k++)
      s += a[y * w + k] * b[k * w + x];
    c[y * w + x] = twice(s);
  }
}

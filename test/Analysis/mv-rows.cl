// The paper's mv: one thread per row reads a row — neighbouring threads are w
// elements apart, never coalesced; the shared x[i] is a broadcast on h100.
// RUN: %gpumerge --target=h100 --analyze %s | FileCheck %s
// CHECK: read  a[idx*w + i]  kind=loop coalesced=false  (neighbouring threads in X are w elements apart)
// CHECK: read  x[i]  kind=loop coalesced=true
// CHECK: write y[idx]  kind=predefined coalesced=true
__kernel void mv(__global const float *a, __global const float *x,
                 __global float *y, int w, int h) {
  int i0 = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i0 < h) {
    float sum = 0.0f;
    for (int i = 0; i < w; i++)
      sum += a[i0 * w + i] * x[i];
    y[i0] = sum;
  }
}

// Column sums: a[j * w + i] is already coalesced across outputs.
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__kernel void coldot(__global const float *a, __global const float *x,
                     __global float *y, int w, int h) {
  int i = get_global_id(0);
  if (i >= w)
    return;
  float sum = 0.0f;
  for (int j = 0; j != h; ++j)
    sum += a[j * w + i] * x[j];
  y[i] = sum;
}

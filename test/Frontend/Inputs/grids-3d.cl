// bmm of grids-3d.cu in OpenCL: the layer is get_global_id(2).
__kernel void bmm(__global const float *a, __global const float *b,
                  __global float *c, int w, int h, int k, int batch) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  int z = get_global_id(2);
  if (x < w && y < h && z < batch) {
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
      sum += a[(z * h + y) * k + p] * b[(z * k + p) * w + x];
    c[(z * h + y) * w + x] = sum;
  }
}

__kernel void tz(__global float *a, int n) {
  int i = get_global_id(0) * 4 + get_local_id(2);
  if (i < n)
    a[i] = 1.0f;
}

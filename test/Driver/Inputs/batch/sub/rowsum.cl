// Batch test input: one row sum per work-item.
__kernel void rowsum(__global float *out, __global const float *m, int w,
                     int h) {
  int r = get_global_id(0);
  if (r < h) {
    float s = 0.0f;
    for (int c = 0; c < w; c++)
      s += m[r * w + c];
    out[r] = s;
  }
}

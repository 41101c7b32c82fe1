// An OpenCL kernel whose window mirrors at the edges (ExtentProbe.h).
__kernel void mirror(__global const float *in, __global float *out, int w,
                     int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h) {
    float s = 0.0f;
    for (int d = -2; d <= 2; d++) {
      int xx = x + d;
      if (xx < 0)
        xx = -xx;
      if (xx > w - 1)
        xx = 2 * (w - 1) - xx;
      s += in[y * w + xx];
    }
    out[y * w + x] = s;
  }
}

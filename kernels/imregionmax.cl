// imregionmax: simplified regional-maximum test on a w x h image: out = 1 at a
// pixel whose value is >= all of its 8 neighbours (neighbours outside the
// image are ignored), else 0. One work-item per pixel; the image border is
// handled by explicit conditions such as x > 0 before each neighbour read.
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(out)
__kernel void imregionmax(__global const float *in, __global float *out, int w,
                          int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h) {
    float v = in[y * w + x];
    float m = 1.0f;
    if (y > 0) {
      if (x > 0 && in[(y - 1) * w + x - 1] > v)
        m = 0.0f;
      if (in[(y - 1) * w + x] > v)
        m = 0.0f;
      if (x < w - 1 && in[(y - 1) * w + x + 1] > v)
        m = 0.0f;
    }
    if (x > 0 && in[y * w + x - 1] > v)
      m = 0.0f;
    if (x < w - 1 && in[y * w + x + 1] > v)
      m = 0.0f;
    if (y < h - 1) {
      if (x > 0 && in[(y + 1) * w + x - 1] > v)
        m = 0.0f;
      if (in[(y + 1) * w + x] > v)
        m = 0.0f;
      if (x < w - 1 && in[(y + 1) * w + x + 1] > v)
        m = 0.0f;
    }
    out[y * w + x] = m;
  }
}

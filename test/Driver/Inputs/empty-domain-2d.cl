// A "valid" 2-D filter, 100 taps wide: at verify's first sizes (w = 67,
// h = 45, fh = 53) its domain is empty in X (w - 99) and in Y (h - fh + 1)
// at once, so no single raised size gives it a domain.
#define TAPS 100

__kernel void filt2(int w, int h, __global const float *in,
                    __global const float *k, __global float *out, int fh) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x >= w - TAPS + 1 || y >= h - fh + 1)
    return;
  float s = 0.0f;
  for (int j = 0; j < fh; j++)
    for (int i = 0; i < TAPS; i++)
      s += in[(y + j) * w + x + i] * k[j * TAPS + i];
  out[y * (w - TAPS + 1) + x] = s;
}

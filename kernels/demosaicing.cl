// demosaicing: bilinear demosaicing of a w x h Bayer mosaic with the RGGB
// pattern (even row: R G R G ..., odd row: G B G B ...) into three w x h
// planes r, g, b. Interior pixels average their 2 or 4 nearest neighbours of
// the missing colour; border pixels (x == 0, x == w-1, y == 0, y == h-1)
// copy the raw sample into all three planes. One work-item per pixel.
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(r, g, b)
__kernel void demosaicing(__global const float *bayer, __global float *r,
                          __global float *g, __global float *b, int w, int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h) {
    float rv, gv, bv;
    if (x > 0 && x < w - 1 && y > 0 && y < h - 1) {
      if (y % 2 == 0) {
        if (x % 2 == 0) { // red site
          rv = bayer[y * w + x];
          gv = 0.25f * (bayer[y * w + x - 1] + bayer[y * w + x + 1] +
                        bayer[(y - 1) * w + x] + bayer[(y + 1) * w + x]);
          bv =
              0.25f * (bayer[(y - 1) * w + x - 1] + bayer[(y - 1) * w + x + 1] +
                       bayer[(y + 1) * w + x - 1] + bayer[(y + 1) * w + x + 1]);
        } else { // green site on a red row
          rv = 0.5f * (bayer[y * w + x - 1] + bayer[y * w + x + 1]);
          gv = bayer[y * w + x];
          bv = 0.5f * (bayer[(y - 1) * w + x] + bayer[(y + 1) * w + x]);
        }
      } else {
        if (x % 2 == 0) { // green site on a blue row
          rv = 0.5f * (bayer[(y - 1) * w + x] + bayer[(y + 1) * w + x]);
          gv = bayer[y * w + x];
          bv = 0.5f * (bayer[y * w + x - 1] + bayer[y * w + x + 1]);
        } else { // blue site
          rv =
              0.25f * (bayer[(y - 1) * w + x - 1] + bayer[(y - 1) * w + x + 1] +
                       bayer[(y + 1) * w + x - 1] + bayer[(y + 1) * w + x + 1]);
          gv = 0.25f * (bayer[y * w + x - 1] + bayer[y * w + x + 1] +
                        bayer[(y - 1) * w + x] + bayer[(y + 1) * w + x]);
          bv = bayer[y * w + x];
        }
      }
    } else {
      rv = bayer[y * w + x];
      gv = rv;
      bv = rv;
    }
    r[y * w + x] = rv;
    g[y * w + x] = gv;
    b[y * w + x] = bv;
  }
}

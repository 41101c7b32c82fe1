// conv: 2-D convolution (correlation form, no filter flip) of a w x h image
// with an fw x fh filter, "valid" region only: the output is
// (w-fw+1) x (h-fh+1), out[y*(w-fw+1)+x] = sum_{fy,fx} img[(y+fy)*w + x+fx]
// * filt[fy*fw + fx]. One work-item per output pixel (x = column, y = row).
// launch: global (w-fw+1, h-fh+1) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096, fw=32, fh=32)
#pragma gpumerge output(out)
__kernel void conv(__global const float *img, __global const float *filt,
                   __global float *out, int w, int h, int fw, int fh) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w - fw + 1 && y < h - fh + 1) {
    float sum = 0.0f;
    for (int fy = 0; fy < fh; fy++)
      for (int fx = 0; fx < fw; fx++)
        sum += img[(y + fy) * w + x + fx] * filt[fy * fw + fx];
    out[y * (w - fw + 1) + x] = sum;
  }
}

// conv: 2-D convolution (correlation form, no filter flip) of a w x h image
// with an fw x fh filter, "valid" region only: the output is
// (w-fw+1) x (h-fh+1), out[y*(w-fw+1)+x] = sum_{fy,fx} img[(y+fy)*w + x+fx]
// * filt[fy*fw + fx]. One thread per output pixel (x = column, y = row).
// launch: block (16,16), grid (ceil((w-fw+1)/16), ceil((h-fh+1)/16))
#pragma gpumerge size(w=4096, h=4096, fw=32, fh=32)
#pragma gpumerge output(out)
__global__ void conv(const float *img, const float *filt, float *out, int w,
                     int h, int fw, int fh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w - fw + 1 && y < h - fh + 1) {
    float sum = 0.0f;
    for (int fy = 0; fy < fh; fy++)
      for (int fx = 0; fx < fw; fx++)
        sum += img[(y + fy) * w + x + fx] * filt[fy * fw + fx];
    out[y * (w - fw + 1) + x] = sum;
  }
}

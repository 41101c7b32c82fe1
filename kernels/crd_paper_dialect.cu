// crd_paper_dialect: the complex sum reduction of crd.cu in the original
// GPGPU compiler's dialect: bare idx (supplied by gpumerge's prelude), sizes
// as #define constants, no bounds guard (the grid is exactly NT threads), and
// __syncthreads() meaning a global barrier between the two phases. N complex
// numbers interleaved as floats (re at in[2*j], im at in[2*j + 1]); NT
// partial sums; out[0], out[1] the real and imaginary parts of the sum.
// Does not compile with nvcc as written.
// launch: block (256), grid (NT/256)
#define N 1048576
#define NT 4096

#pragma gpumerge output(out)
__global__ void crd_paper_dialect(float in[2 * N], float partial[2 * NT],
                                  float out[2]) {
  float re = 0, im = 0;
  for (int j = idx; j < N; j += NT) {
    re += in[2 * j];
    im += in[2 * j + 1];
  }
  partial[2 * idx] = re;
  partial[2 * idx + 1] = im;
  __syncthreads();
  if (idx == 0) {
    float total_re = 0, total_im = 0;
    for (int j = 0; j < NT; j++) {
      total_re += partial[2 * j];
      total_im += partial[2 * j + 1];
    }
    out[0] = total_re;
    out[1] = total_im;
  }
}

// tmv_paper_flat: transposed matrix-vector multiplication C = A^T * B as the
// original GPGPU compiler's test kernels write it: a flat A read through an
// accessor macro, its row width a #define, bare idx, no bounds guard, and the
// loop bound a parameter. The domain is what the launch covers, one column
// of A a thread (the reads of a warp are neighbours already).
// Does not compile with nvcc as written.
// launch: block (256), grid (WIDTH_A/256)
#define WIDTH_A 2048
#define A(y, x) A[(y) * WIDTH_A + (x)]

__global__ void tmv_paper_flat(float *A, float *B, float *C, int width) {
  int i;
  float sum = 0;
  for (i = 0; i < width; i = i + 1) {
    float a, b;
    a = A(i, idx);
    b = B[i];
    sum += a * b;
  }
  C[idx] = sum;
}

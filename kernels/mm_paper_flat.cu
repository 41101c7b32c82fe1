// mm_paper_flat: matrix multiplication C = A * B as the original GPGPU
// compiler's test kernels write it (Yang et al.): flat pointers read through
// accessor macros, row widths as #define constants, bare idx / idy (supplied
// by gpumerge's prelude), no bounds guard, and the loop bound a parameter.
// The domain is what the launch covers: A's and C's rows are WIDTH_A and
// WIDTH_C floats apart, B's WIDTH_B.
// Does not compile with nvcc as written.
// launch: block (16,16), grid (WIDTH_C/16, height/16)
#define WIDTH_A 2048
#define WIDTH_B 2048
#define WIDTH_C 2048
#define A(y, x) A[(y) * WIDTH_A + (x)]
#define B(y, x) B[(y) * WIDTH_B + (x)]
#define C(y, x) C[(y) * WIDTH_C + (x)]

__global__ void mm_paper_flat(float *A, float *B, float *C, int width,
                              int height) {
  int i;
  float sum = 0;
  for (i = 0; i < width; i = i + 1) {
    float a, b;
    a = A(idy, i);
    b = B(i, idx);
    sum += a * b;
  }
  C(idy, idx) = sum;
}

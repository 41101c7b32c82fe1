// mm_paper_dialect: matrix multiplication c = a * b in the original GPGPU
// compiler's dialect (Yang et al., Fig. 2 style): bare idx / idy (supplied by
// gpumerge's prelude, not declared here), sizes as #define constants, true
// 2-D arrays, and no bounds guard (the sizes are exact multiples of the
// block). All three matrices are WIDTH x WIDTH.
// Does not compile with nvcc as written.
// launch: block (16,16), grid (WIDTH/16, WIDTH/16)
#define WIDTH 2048

#pragma gpumerge output(c)
__global__ void mm_paper_dialect(float a[WIDTH][WIDTH], float b[WIDTH][WIDTH],
                                 float c[WIDTH][WIDTH]) {
  int i;
  float sum = 0;
  for (i = 0; i < WIDTH; i++)
    sum += a[idy][i] * b[i][idx];
  c[idy][idx] = sum;
}

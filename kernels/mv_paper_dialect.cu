// mv_paper_dialect: matrix-vector multiplication c = A * b in the original
// GPGPU compiler's dialect (Yang et al., Fig. 1 style): bare idx (supplied by
// gpumerge's prelude, not declared here), sizes as #define constants, true
// 2-D arrays, and no bounds guard (the sizes are exact multiples of the
// block). A is HEIGHT x WIDTH, b has WIDTH elements, c has HEIGHT.
// Does not compile with nvcc as written.
// launch: block (256), grid (HEIGHT/256)
#define WIDTH 2048
#define HEIGHT 2048

#pragma gpumerge output(c)
__global__ void mv_paper_dialect(float a[HEIGHT][WIDTH], float b[WIDTH],
                                 float c[HEIGHT]) {
  float sum = 0;
  for (int i = 0; i < WIDTH; i++)
    sum += a[idx][i] * b[i];
  c[idx] = sum;
}

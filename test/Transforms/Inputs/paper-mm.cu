// The paper's matrix multiply in its own dialect (bare idx/idy, #define'd
// sizes, true 2-D arrays, no guard), at a size PoCL verifies quickly.
#define WIDTH 256
__global__ void mm(float a[WIDTH][WIDTH], float b[WIDTH][WIDTH],
                   float c[WIDTH][WIDTH]) {
  int i;
  float sum = 0;
  for (i = 0; i < WIDTH; i++)
    sum += a[idy][i] * b[i][idx];
  c[idy][idx] = sum;
}

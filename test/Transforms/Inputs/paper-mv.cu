// The paper's matrix-vector multiply (Fig. 1) in its own dialect.
#define WIDTH 512
#define HEIGHT 384
__global__ void mv(float a[HEIGHT][WIDTH], float b[WIDTH], float c[HEIGHT]) {
  float sum = 0;
  for (int i = 0; i < WIDTH; i++)
    sum += a[idx][i] * b[i];
  c[idx] = sum;
}

// The paper's transposed matrix-vector multiply in its own dialect: the
// column a[i][idx] is coalesced, b[i] is the same for every thread.
#define WIDTH 1024
#define HEIGHT 320
__global__ void tmv(float a[HEIGHT][WIDTH], float b[HEIGHT], float c[WIDTH]) {
  int i;
  float sum = 0;
  for (i = 0; i < HEIGHT; i++)
    sum += a[i][idx] * b[i];
  c[idx] = sum;
}

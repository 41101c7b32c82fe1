// The paper's 2-D convolution in its own dialect: a 7 x 5 filter over an
// image padded by the filter's size, every thread reading a window of it.
#define WIDTH 256
#define HEIGHT 128
#define FW 7
#define FH 5
__global__ void conv(float a[HEIGHT + FH][WIDTH + FW], float f[FH][FW],
                     float c[HEIGHT][WIDTH]) {
  float sum = 0;
  for (int i = 0; i < FH; i++)
    for (int j = 0; j < FW; j++)
      sum += a[idy + i][idx + j] * f[i][j];
  c[idy][idx] = sum;
}

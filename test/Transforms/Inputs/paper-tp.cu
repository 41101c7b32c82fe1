// The paper's matrix transpose in its own dialect: the read a[idy][idx] is
// coalesced, the write c[idx][idy] is not (a column per warp).
#define WIDTH 320
#define HEIGHT 192
__global__ void tp(float a[HEIGHT][WIDTH], float c[WIDTH][HEIGHT]) {
  c[idx][idy] = a[idy][idx];
}

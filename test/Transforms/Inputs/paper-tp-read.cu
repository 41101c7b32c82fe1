// The transpose as the original compiler's test kernel writes it: the read
// a[idx][idy] is the uncoalesced access (a column per warp), outside any
// loop, and there is no guard (--grid gives the domain).
#define WIDTH 320
#define HEIGHT 192
__global__ void tpr(float a[WIDTH][HEIGHT], float c[HEIGHT][WIDTH]) {
  c[idy][idx] = a[idx][idy];
}

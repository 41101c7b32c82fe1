// tp_paper_dialect: matrix transpose as the original GPGPU compiler's test
// kernel writes it (Yang et al.): bare idx / idy (supplied by gpumerge's
// prelude), sizes as #define constants, true 2-D arrays, no bounds guard.
// The read a[idx][idy] is the uncoalesced access: gpumerge exchanges idx and
// idy so that it becomes a write through a shared tile. a is WIDTH x HEIGHT,
// c is HEIGHT x WIDTH: c[y][x] = a[x][y].
// Does not compile with nvcc as written.
// launch: block (16,16), grid (WIDTH/16, HEIGHT/16)
#define WIDTH 1024
#define HEIGHT 512

#pragma gpumerge output(c)
__global__ void tp_paper_dialect(float a[WIDTH][HEIGHT],
                                 float c[HEIGHT][WIDTH]) {
  c[idy][idx] = a[idx][idy];
}

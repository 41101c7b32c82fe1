// tp_paper_flat: matrix transpose as the original GPGPU compiler's test
// kernels write it: flat pointers through accessor macros, row widths as
// #define constants, bare idx / idy, no bounds guard. The write B(idx, idy)
// is the uncoalesced access: gpumerge stages it through a shared tile.
// The domain is what the launch covers (at most WIDTH_A x WIDTH_B).
// Does not compile with nvcc as written.
// launch: block (16,16), grid (WIDTH_A/16, WIDTH_B/16)
#define WIDTH_A 2048
#define WIDTH_B 2048
#define A(y, x) A[(y) * WIDTH_A + (x)]
#define B(y, x) B[(y) * WIDTH_B + (x)]

__global__ void tp_paper_flat(float *A, float *B) {
  B(idx, idy) = A(idy, idx);
}

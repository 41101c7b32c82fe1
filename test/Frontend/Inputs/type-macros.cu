// Element types named by macros, as SHOC (FPTYPE) and PolyBench (DATA_TYPE)
// name them: the program builds in single or double precision.
#ifndef FPTYPE
#define FPTYPE float
#endif
#define INDEX int

__global__ void axpb(FPTYPE *y, const FPTYPE *x, FPTYPE a, INDEX n) {
  INDEX i = blockIdx.x * blockDim.x + threadIdx.x;
  FPTYPE t = a * x[i];
  if (i < n)
    y[i] = t + x[i + 1];
}

void run(FPTYPE *y, const FPTYPE *x, FPTYPE a, int n) {
  axpb<<<(n + 255) / 256, 256>>>(y, x, a, n);
}

// PTX's special registers written with one %: nvcc takes them, Clang's
// inline asm checker wants %%.
__global__ void lanes(unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane;
  asm("mov.u32 %0, %laneid;" : "=r"(lane));
  if (i < n)
    out[i] = lane;
}

__global__ void scale(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f * b[i];
}

// clang-format off
// saxpy whose author promised that x and y do not alias.
#pragma gpumerge size(n=16777216)
#pragma gpumerge output(y)
__global__ void saxpy_r(int n, float a, const float *__restrict__ x,
                        float *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// saxpy: y = alpha * x + y on n-element vectors, one thread per element.
// The thread index is written in the commuted form threadIdx +
// blockIdx*blockDim. launch: block (256), grid (ceil(n/256))
#pragma gpumerge size(n=16777216)
#pragma gpumerge output(y)
__global__ void saxpy(int n, float alpha, const float *x, float *y) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

// Batch test input that does not parse: the batch reports it (exit 1) and
// goes on with the other files.
__global__ void broken(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f *;
}

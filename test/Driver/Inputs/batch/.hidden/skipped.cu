// Batch test input in a hidden directory: a batch does not walk into it.
__global__ void skipped(float *a) { a[threadIdx.x] = 0.0f; }

// Not C++: nvcc's own diagnostics on this file are what the user sees.
__global__ void k(float *a) { a[0] = 1.0f }

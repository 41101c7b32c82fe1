// A guard bounds the domain (ni rows) and --grid names the launch (more
// threads): the launcher takes the guard's extent, and so must verify.
__global__ void qdiv(float *a, float *r, float *q, int ni, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < ni)
    q[i * 2048 + k] = a[i * 2048 + k] / r[k * 2048 + k];
}

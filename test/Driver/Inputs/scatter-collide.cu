// A scatter whose targets collide whatever bin holds: `& 15` maps many
// threads to each of h's 16 elements, and which of them wins depends on the
// order they run in. Verify draws bin as a permutation (it steers a write),
// which cannot help here.
__global__ void hist(const int *bin, const float *a, float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    h[bin[i] & 15] = a[i];
}

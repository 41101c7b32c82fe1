// A filter in constant memory (the user fills it with cudaMemcpyToSymbol):
// gpumerge cannot follow file-scope arrays yet, so the kernel is passed
// through as written, and says why in the user's words.
#define FW 5
__constant__ float filt[FW];

__global__ void conv1d(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - FW + 1) {
    float s = 0.0f;
    for (int j = 0; j < FW; j++)
      s += in[i + j] * filt[j]; // a __constant__ read
    out[i] = s;
  }
}

// histogram_atomic: histogram of n values into nbins bins with atomicAdd.
// Deliberately unsupported: the bin index depends on the data and the update
// is atomic, so gpumerge must pass this kernel through unchanged with a
// warning. One thread per input value.
// launch: block (256), grid (ceil(n/256))
#pragma gpumerge size(n=16777216, nbins=256)
#pragma gpumerge output(hist)
__global__ void histogram_atomic(const unsigned int *data, unsigned int *hist,
                                 int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[data[i] % nbins], 1u);
}

// conv1d_const: a 1-D valid convolution whose taps live in constant memory,
// as signal-processing code keeps them: the host fills `taps` with
// cudaMemcpyToSymbol before the launch; out has n - NTAPS + 1 elements.
// launch: block (256), grid (ceil((n - NTAPS + 1)/256))
#define NTAPS 9

__constant__ float taps[NTAPS];

#pragma gpumerge size(n=16777216)
#pragma gpumerge output(out)
__global__ void conv1d_const(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - NTAPS + 1) {
    float s = 0.0f;
    for (int t = 0; t < NTAPS; t++)
      s += taps[t] * in[i + t];
    out[i] = s;
  }
}

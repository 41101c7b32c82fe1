// Batch test input that needs -DSCALE=...: compile_commands.json gives it.
#ifndef SCALE
#error "SCALE is defined by the build (compile_commands.json)"
#endif
__global__ void scaled(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = SCALE * in[i];
}

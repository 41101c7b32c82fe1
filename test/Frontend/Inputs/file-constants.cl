// clang-format off
// OpenCL's program-scope constants.
__constant int TAPS = 5;
constant float WEIGHT = 0.2f;
__kernel void blur(__global float *y, __global const float *x, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
      s += WEIGHT * x[i * TAPS + k];
    y[i] = s;
  }
}

// A reference that differs from kernels/saxpy.cu: y = alpha * x - y.
__kernel void saxpy(int n, float alpha, __global const float *x,
                    __global float *y) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = alpha * x[i] - y[i];
}

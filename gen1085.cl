// genkernel seed=1085 lang=opencl features=type:double,shape:mm,mm-a-transposed,c89-loops,early-return,compound-store
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void compute(__global const double *A, __global const double *B, __global double *C, int w, int h, int k) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  int i;
  if (col >= w || row >= h) {
    return;
  }
  double s = 0.0;
  for (i = 0; i < k; i = i + 1) {
    s += B[i * w + col] + fmax(A[i * h + row], 2.0);
  }
  C[row * w + col] *= s;
}

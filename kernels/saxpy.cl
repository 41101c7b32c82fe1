// saxpy: y = alpha * x + y on n-element vectors, one work-item per element.
// The index is written as local id + group id * local size (commuted form).
// launch: global (n) rounded up to a multiple of local (256)
#pragma gpumerge size(n=16777216)
#pragma gpumerge output(y)
__kernel void saxpy(int n, float alpha, __global const float *x,
                    __global float *y) {
  int i = get_local_id(0) + get_group_id(0) * get_local_size(0);
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

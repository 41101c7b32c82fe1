// One row of a backward sweep: row n - 2 - r from the row before it, which
// exists only when n > r + 2 (so verify's default sizes must be repaired
// before its search for sizes where n % 4 == 0, the float4 condition).
__kernel void sweep(__global const float *a, __global const float *x,
                    __global float *y, int r, int n) {
  int c = get_global_id(0);
  if (c < n)
    y[(n - 2 - r) * n + c] =
        x[(n - 2 - r) * n + c] - 0.5f * x[(n - 3 - r) * n + c] * a[(n - 3 - r) * n + c];
}

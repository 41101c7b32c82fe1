// madd_rowx: matrix addition C = A + B (h x w, row-major) written the way
// that maps the row to x: row = get_global_id(0). Every
// access has x in its row index, so neighbouring threads are a row apart and
// none coalesces; exchanging idx and idy (§3.3) makes them all coalesce.
// launch: global (h, w) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(c)
__kernel void madd_rowx(__global const float *a, __global const float *b,
                        __global float *c, int w, int h) {
  int row = get_global_id(0);
  int col = get_global_id(1);
  if (row < h && col < w)
    c[row * w + col] = a[row * w + col] + b[row * w + col];
}

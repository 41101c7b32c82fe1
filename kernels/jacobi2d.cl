// jacobi2d: one 5-point Jacobi sweep on a w x h grid (PolyBench jacobi-2d),
// interior points only: b[y][x] = 0.2 * (a[y][x] + a[y][x-1] + a[y][x+1] +
// a[y-1][x] + a[y+1][x]); border points of b are not written.
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(b)
__kernel void jacobi2d(__global const float *a, __global float *b, int w,
                       int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x > 0 && x < w - 1 && y > 0 && y < h - 1)
    b[y * w + x] = 0.2f * (a[y * w + x] + a[y * w + x - 1] + a[y * w + x + 1] +
                           a[(y - 1) * w + x] + a[(y + 1) * w + x]);
}

// vv: vector-vector multiplication (outer product) C = a * b^T, a has h
// elements, b has w, C is h x w: C[y*w+x] = a[y] * b[x].
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(c)
__kernel void vv(__global const float *a, __global const float *b,
                 __global float *c, int w, int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h)
    c[y * w + x] = a[y] * b[x];
}

// cmv: complex matrix-vector product y = A x with interleaved (real, imag)
// floats: A is h x w complex numbers (2w floats per row), x has w, y has h.
// One work-item per row. The loop reads a[2*(i*w + j)] and a[2*(i*w + j) + 1]:
// index A[m*j + n] with m = 2, the case §3.3 unrolls 16/gcd(m, 16) times.
// launch: global (h) rounded up to a multiple of local (256)
#pragma gpumerge size(w=2048, h=2048)
#pragma gpumerge output(y)
__kernel void cmv(__global const float *a, __global const float *x,
                  __global float *y, int w, int h) {
  int i = get_global_id(0);
  if (i < h) {
    float re = 0.0f;
    float im = 0.0f;
    for (int j = 0; j < w; j++) {
      float ar = a[2 * (i * w + j)];
      float ai = a[2 * (i * w + j) + 1];
      float xr = x[2 * j];
      float xi = x[2 * j + 1];
      re += ar * xr - ai * xi;
      im += ar * xi + ai * xr;
    }
    y[2 * i] = re;
    y[2 * i + 1] = im;
  }
}

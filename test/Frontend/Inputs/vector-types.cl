// clang-format off
// OpenCL vectors: stores to components of a local (r.x = ax), which thread
// merge once shared among the merged threads, and of an array element
// (y[i].x = re); vector arithmetic, which CUDA lacks.
__kernel void nbody(__global const float4 *pos, __global float4 *acc, int n, float eps) {
  int i = get_global_id(0);
  if (i < n) {
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
      float4 q = pos[j];
      float dx = q.x - p.x;
      float dy = q.y - p.y;
      float dz = q.z - p.z;
      float r2 = dx * dx + dy * dy + dz * dz + eps;
      float inv = rsqrt(r2);
      float s = q.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    float4 r;
    r.x = ax; r.y = ay; r.z = az; r.s3 = 0.0f;
    acc[i] = r;
  }
}

__kernel void zmv(__global const float2 *a, __global const float2 *x, __global float2 *y, int w, int h) {
  int i = get_global_id(0);
  if (i < h) {
    float re = 0.0f, im = 0.0f;
    for (int j = 0; j < w; j++) {
      float2 p = a[i * w + j];
      float2 q = x[j];
      re += p.x * q.x - p.y * q.y;
      im += p.x * q.y + p.y * q.x;
    }
    y[i].x = re;
    y[i].y = im;
  }
}

__kernel void axpy4(__global const float4 *a, __global const float4 *b, __global float4 *c, int n) {
  int i = get_global_id(0);
  if (i < n)
    c[i] = a[i] * 2.0f + b[i].wzyx;
}

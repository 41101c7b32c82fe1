// nbody: all-pairs gravitational acceleration (GPU Gems 3, ch. 31). pos holds
// n bodies as float4 (x, y, z, mass); acc[i] = sum_j m_j * d_ij / (|d_ij|^2 +
// eps)^(3/2), d_ij = p_j - p_i. One work-item per body; the result is stored
// a component at a time. launch: global (n) rounded up to a multiple of
// local (256)
#pragma gpumerge size(n=16384)
#pragma gpumerge output(acc)
__kernel void nbody(__global const float4 *pos, __global float4 *acc, int n,
                    float eps) {
  int i = get_global_id(0);
  if (i < n) {
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
      float4 q = pos[j];
      float dx = q.x - p.x;
      float dy = q.y - p.y;
      float dz = q.z - p.z;
      float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps);
      float s = q.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    acc[i].x = ax;
    acc[i].y = ay;
    acc[i].z = az;
    acc[i].w = 0.0f;
  }
}

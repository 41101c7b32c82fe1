// nbody: all-pairs gravitational acceleration (GPU Gems 3, ch. 31). pos holds
// n bodies as float4 (x, y, z, mass); acc[i] = sum_j m_j * d_ij / (|d_ij|^2 +
// eps)^(3/2), d_ij = p_j - p_i. One thread per body, every thread reads every
// body: the bodies are shared by the whole grid.
// launch: block (256), grid (ceil(n/256))
#pragma gpumerge size(n = 16384)
#pragma gpumerge output(acc)
__global__ void nbody(const float4 *pos, float4 *acc, int n, float eps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
      float4 q = pos[j];
      float dx = q.x - p.x;
      float dy = q.y - p.y;
      float dz = q.z - p.z;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps);
      float s = q.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
  }
}

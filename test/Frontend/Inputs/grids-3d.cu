// Kernels on 3-D grids: the z position is a layer, which optimized kernels
// run in blocks one layer deep.

// One matrix product per layer (batched).
#pragma gpumerge size(w=1024, h=1024, k=1024, batch=16)
__global__ void bmm(const float *a, const float *b, float *c, int w, int h,
                    int k, int batch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < w && y < h && z < batch) {
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
      sum += a[(z * h + y) * k + p] * b[(z * k + p) * w + x];
    c[(z * h + y) * w + x] = sum;
  }
}

// A volume scaled, z first in the guard, an early return.
__global__ void vscale(const float *in, float *out, float s, int w, int h,
                       int d) {
  int z = blockDim.z * blockIdx.z + threadIdx.z;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  if (z >= d || y >= h || x >= w)
    return;
  out[(z * h + y) * w + x] = s * in[(z * h + y) * w + x];
}

// No guard on z: the layers are what the launch covers.
__global__ void addz(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < n)
    a[z * n + i] += (float)z;
}

// threadIdx.z alone: a 3-D block, not a layer.
__global__ void depth(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i * 4 + threadIdx.z] = 1.0f;
}

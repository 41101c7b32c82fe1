// bmm: batched matrix multiplication, C_z = A_z * B_z for z < batch, one
// layer of a 3-D grid per product; C_z is h x w, A_z h x k, B_z k x w, each
// stored after the previous one (row-major, flattened).
// launch: block (16,16,1), grid (ceil(w/16), ceil(h/16), batch)
#pragma gpumerge size(w=1024, h=1024, k=1024, batch=16)
#pragma gpumerge output(c)
__global__ void bmm(const float *a, const float *b, float *c, int w, int h,
                    int k, int batch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < w && y < h && z < batch) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[(z * h + y) * k + i] * b[(z * k + i) * w + x];
    c[(z * h + y) * w + x] = sum;
  }
}

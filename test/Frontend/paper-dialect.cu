// The original GPGPU compiler's dialect: bare idx/idy, #define'd sizes kept
// by name, __syncthreads() as a global barrier.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=gtx285 --passes=none --memory=global --lang=cuda -o %t/out.cu %s
// RUN: FileCheck %s < %t/out.cu
#define WIDTH 512
// CHECK-LABEL: __global__ void tmv(
// CHECK: for (int i = 0; i < WIDTH; i++)
// CHECK: sum += a[i][blockIdx.x * blockDim.x + threadIdx.x] * b[i];
// CHECK: c[blockIdx.x * blockDim.x + threadIdx.x] = sum;
__global__ void tmv(float a[WIDTH][WIDTH], float b[WIDTH], float c[WIDTH]) {
  float sum = 0;
  for (int i = 0; i < WIDTH; i++)
    sum += a[i][idx] * b[i];
  c[idx] = sum;
}
// CHECK-LABEL: __global__ void phases(
// CHECK: gpumerge_global_sync();
__global__ void phases(float *a) {
  a[idx] = 1.0f;
  __syncthreads();
  a[idx] += a[idx + 1];
}

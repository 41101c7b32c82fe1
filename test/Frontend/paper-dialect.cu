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
// __syncthreads() is a global barrier here: the kernel splits into two.
// CHECK-LABEL: __global__ void phases_{{phase0}}(float *a) {
// CHECK-NEXT: a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void phases_{{phase1}}(float *a) {
// CHECK-NEXT: a[blockIdx.x * blockDim.x + threadIdx.x] += a[blockIdx.x * blockDim.x + threadIdx.x + 1];
// CHECK-NEXT: }
// CHECK: static void gpumerge_launch_{{phases}}(
// CHECK: ) {
// CHECK-NEXT: phases_{{phase0}}{{<+}}grid, block, smem, stream{{>+}}(a);
// CHECK-NEXT: phases_{{phase1}}{{<+}}grid, block, smem, stream{{>+}}(a);
// CHECK-NOT: sync
__global__ void phases(float *a) {
  a[idx] = 1.0f;
  __syncthreads();
  a[idx] += a[idx + 1];
}

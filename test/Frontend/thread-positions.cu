// Every usual way of writing the thread position becomes the same built-in;
// the debug form of --emit-steps shows the round trip.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --passes=none --memory=global -o %t/out.cu %s
// RUN: FileCheck %s < %t/out.cu
// RUN: %gpumerge --target=h100 --passes=none --memory=global --lang=opencl -o %t/out.cl %s
// RUN: FileCheck --check-prefix=CL %s < %t/out.cl

// CHECK-LABEL: __global__ void commuted(
// CHECK: int i = blockIdx.x * blockDim.x + threadIdx.x;
// CL-LABEL: __kernel void commuted(
// CL: int i = get_global_id(0);
__global__ void commuted(float *a, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    a[i] = 2.0f * a[i];
}

// CHECK-LABEL: __global__ void loops(
// CHECK: for (int j = 0; j < n; j++)
// CHECK: for (int k = 1; k < n; k += 2)
// CHECK: for (int l = 0; l < n; l++)
// CHECK: for (int m = n - 1; m >= 0; m--)
// CL: for (int m = n - 1; m >= 0; m--)
__global__ void loops(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j)
      s += a[j];
    for (int k = 1; n > k; k += 2)
      s += a[k];
    for (int l = 0; l < n; l = l + 1)
      s += a[l];
    for (int m = n - 1; m >= 0; m--)
      s -= a[m];
    a[i] = s;
  }
}

// OpenCL to CUDA and back: math names, barriers, local memory, typedefs and
// doubles are spelled as each language spells them; --verify runs both.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --passes=none --memory=global --lang=cuda --verify -o %t/out.cu %s | FileCheck --check-prefix=VERIFY %s
// RUN: FileCheck %s < %t/out.cu
// RUN: %gpumerge --target=h100 --passes=none --memory=global --lang=opencl --verify -o %t/back.cl %t/out.cu
// RUN: FileCheck --check-prefix=BACK %s < %t/back.cl
// REQUIRES: nvcc
// RUN: %nvcc -arch=sm_80 -c -o %t/out.o %t/out.cu

// VERIFY: verify norm2 (global): ok
// CHECK: typedef float DATA_TYPE;
// CHECK-LABEL: __global__ void norm2(const DATA_TYPE *a, DATA_TYPE *out, int w, int h)
// CHECK: out[y * w + x] = sqrt(v * v + 1.0f);
// BACK: __kernel void norm2(__global const DATA_TYPE *a, __global DATA_TYPE *out, int w, int h)
// BACK: int x = get_global_id(0);
typedef float DATA_TYPE;
__kernel void norm2(__global const DATA_TYPE *a, __global DATA_TYPE *out,
                    int w, int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h) {
    DATA_TYPE v = a[y * w + x];
    out[y * w + x] = sqrt(v * v + 1.0f);
  }
}

// A loop counter declared before its loop (C89, the style of most benchmark
// suites): coalesce tiles the loop with a new tile counter (declared) and
// keeps the inner loop on the user's counter (assigned, not redeclared), so
// the KIR is well formed and a read of the counter after the loop still sees
// its final value. Before the fix: "loop iterator 'j0' undeclared", exit 4.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --memory=global --verify -o %t/h100.cu %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: FileCheck %s < %t/h100.cu
// RUN: %gpumerge --target=gtx285 --memory=both --verify --out-dir=%t %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: %gpumerge --target=hd5870 --lang=opencl --memory=both --verify --size n=45 --out-dir=%t %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// VERIFY-NOT: gpumerge bug
// VERIFY-NOT: mismatch
// VERIFY: verify mv ({{.*}}optimized path{{.*}}): ok

// CHECK-LABEL: {{^}}__global__ void mv(
// CHECK:       {{^ *}}int j;
// CHECK:       {{^ *}}for (int j0 = 0; j0 < n - n % 32; j0 += 32) {
// CHECK:       {{^ *}}for (j = j0; j < j0 + 32; j++) {
__global__ void mv(int n, float *a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { int j; for (j = 0; j < n; j++) y[i] += a[i * n + j] * x[j]; }
}

// The counter is read after the loop: it must hold n there.
// CHECK-LABEL: {{^}}__global__ void after(
// CHECK:       {{^ *}}for (j = j0; j < j0 + 32; j++) {
// CHECK:       {{^ *}}y[i] = s + j;
__global__ void after(int n, const float *a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j;
    float s = 0.0f;
    for (j = 0; j < n; j++)
      s += a[i * n + j] * x[j];
    y[i] = s + j;
  }
}

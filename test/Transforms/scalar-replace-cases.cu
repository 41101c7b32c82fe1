// scalar-replace: where it applies and where it must not. Every kernel keeps
// computing what the naive one computes (--verify on PoCL).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --passes=scalar-replace --memory=global --report=json --verify -o %t/out.cu %s > %t/report.json
// RUN: FileCheck %s < %t/out.cu
// RUN: FileCheck --check-prefix=REPORT %s < %t/report.json
// RUN: %gpumerge --target=h100 --passes=scalar-replace --memory=global --lang=opencl --verify --size n=45,k=29 -o %t/out.cl %s | FileCheck --check-prefix=VERIFY %s
// RUN: FileCheck --check-prefix=CL %s < %t/out.cl

// Two elements of c in one loop: both stay in memory.
// CHECK-LABEL: {{^}}__global__ void twoidx(
// CHECK-NOT:   {{^ +float [a-z]+_reg}}
// CHECK:       {{^ *}}c[2 * i] += a[l];
// REPORT: "name": "twoidx"
// REPORT: "reason": "no pass applied (scalar-replace: 'c' is accessed at c[2 * i] and c[2 * i + 1] in the loop over 'l')"
// REPORT: "status": "passed-through"
// REPORT: "verify": "ok"
__global__ void twoidx(const float *a, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int l = 0; l < k; l++) {
      c[2 * i] += a[l];
      c[2 * i + 1] -= a[l];
    }
  }
}

// The index moves with the loop: a different element each iteration.
// CHECK-LABEL: {{^}}__global__ void varying(
// CHECK-NOT:   {{^ +float [a-z]+_reg}}
// CHECK:       {{^ *}}c[i * k + l] += a[l];
// REPORT: "name": "varying"
// REPORT: "reason": "no pass applied (scalar-replace: the index of c[i * k + l] changes in the loop over 'l' (through 'l'))"
__global__ void varying(const float *a, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int l = 0; l < k; l++)
      c[i * k + l] += a[l];
}

// ... or through a local set in the loop.
// CHECK-LABEL: {{^}}__global__ void moving(
// CHECK-NOT:   {{^ +float [a-z]+_reg}}
// REPORT: "name": "moving"
// REPORT: "reason": "no pass applied (scalar-replace: the index of c[r] changes in the loop over 'l' (through 'r'))"
__global__ void moving(const float *a, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int l = 0; l < k; l++) {
      int r = i * k + l;
      c[r] += a[l];
    }
  }
}

// Not across the loop over p (the element changes with p), but across the
// inner loop over l.
// CHECK-LABEL: {{^}}__global__ void nested(
// CHECK:       {{^ *}}for (int p = 0; p < 2; p++)
// CHECK-NEXT:    {{^ *}}float c_reg = c[i * 2 + p];
// CHECK-NEXT:    {{^ *}}for (int l = 0; l < k; l++)
// CHECK-NEXT:      {{^ *}}c_reg += a[l * 2 + p];
// CHECK:         {{^ *}}c[i * 2 + p] = c_reg;
// REPORT: "name": "nested"
// REPORT: "arrays": "c[i * 2 + p]"
// REPORT: "status": "optimized"
__global__ void nested(const float *a, float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int p = 0; p < 2; p++)
      for (int l = 0; l < k; l++)
        c[i * 2 + p] += a[l * 2 + p];
}

// Two arrays in one loop, one written under a condition: both in registers.
// CHECK-LABEL: {{^}}__global__ void two(
// CHECK:       {{^ *}}float s_reg = s[i];
// CHECK-NEXT:  {{^ *}}float q_reg = q[i];
// CHECK-NEXT:  {{^ *}}for (int l = 0; l < k; l++)
// CHECK-NEXT:    {{^ *}}s_reg += a[i * k + l];
// CHECK-NEXT:    {{^ *}}if (s_reg > 1.0f)
// CHECK-NEXT:      {{^ *}}q_reg = q_reg * 0.5f + s_reg;
// CHECK:       {{^ *}}s[i] = s_reg;
// CHECK-NEXT:  {{^ *}}q[i] = q_reg;
// REPORT: "name": "two"
// REPORT: "arrays": "s[i], q[i]"
// CL-LABEL: __kernel void two(
// CL:       float s_reg = s[i];
// CL:       s[i] = s_reg;
// VERIFY: verify two (global{{.*}}): ok
__global__ void two(const float *a, float *s, float *q, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int l = 0; l < k; l++) {
      s[i] += a[i * k + l];
      if (s[i] > 1.0f)
        q[i] = q[i] * 0.5f + s[i];
    }
  }
}

// A register name that is taken gets a suffix.
// CHECK-LABEL: {{^}}__global__ void taken(
// CHECK:       {{^ *}}float c_reg1 = c[i];
// CHECK:       {{^ *}}c_reg1 = c_reg1 * 0.5f + c_reg;
// CHECK:       {{^ *}}c[i] = c_reg1;
__global__ void taken(float *c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float c_reg = 1.0f;
    for (int l = 0; l < k; l++)
      c[i] = c[i] * 0.5f + c_reg;
  }
}

// A kernel the frontend cannot lower is passed through unchanged, with a
// warning naming the construct and its line; the others are still handled.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --passes=none --memory=global --report=json -o %t/out.cu %s 2>%t/err > %t/report.json
// RUN: FileCheck --check-prefix=WARN %s < %t/err
// RUN: FileCheck --check-prefix=JSON %s < %t/report.json
// RUN: FileCheck --check-prefix=HELPERS %s < %t/report.json
// RUN: FileCheck --check-prefix=OUT %s < %t/out.cu

// WARN: passthrough.cu:[[@LINE+4]]: warning: kernel 'spin' passed through unchanged: while loop
// OUT: while (i < n) { i += 4; a[i - 4] += 1.0f; }
__global__ void spin(float *a, int n) {
  int i = threadIdx.x;
  while (i < n) { i += 4; a[i - 4] += 1.0f; }
}

// WARN: passthrough.cu:[[@LINE+3]]: warning: kernel 'hist' passed through unchanged: atomic operation 'atomicAdd'
__global__ void hist(const int *v, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[v[i]], 1);
}

// JSON: "name": "spin"
// JSON: "reason": "while loop at line
// JSON: "status": "passed-through"
__global__ void fine(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0.5f;
}

// A __device__ helper that cannot be lowered is named as a helper, listed
// apart from the kernels in the report, and its callers say why they pass.
// WARN: passthrough.cu:[[@LINE+3]]: warning: helper function 'halve' passed through unchanged: while loop
// WARN: passthrough.cu:[[@LINE+5]]: warning: kernel 'caller' passed through unchanged: call of helper 'halve' that could not be lowered
__device__ float halve(float x) {
  while (x > 1.0f) x *= 0.5f;
  return x;
}
__global__ void caller(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = halve(a[i]);
}
// HELPERS: "helpers": [
// HELPERS-NEXT: {
// HELPERS-NEXT: "line":
// HELPERS-NEXT: "name": "halve",
// HELPERS: "kernels": [
// HELPERS-NOT: "name": "halve"

// A template kernel that no launch instantiates: said once, in the user's
// words (not "type 'T'"), and kept as written. (Instantiated templates:
// templates.test.)
// WARN: passthrough.cu:[[@LINE+3]]: warning: kernel 'scale' passed through unchanged: a template that no launch in this file instantiates (gpumerge optimizes the instantiations that launches name)
// WARN-NOT: 'scale'
template <typename T>
__global__ void scale(T *a, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * s;
}
// OUT: template <typename T>
// OUT-NEXT: __global__ void scale(T *a, T s, int n) {

// An instantiation calling a helper template defined after it: its
// optimized kernel would follow its own template, before the helper's.
// WARN: passthrough.cu:[[@LINE+2]]: warning: kernel 'useLater<float>' passed through unchanged: call of 'later_float', an instantiation of a helper template defined after this function
template <typename T> __device__ T later(T v);
template <typename T>
__global__ void useLater(T *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = later(a[i]);
}
template <typename T> __device__ T later(T v) { return v + 1; }
void launchLater(float *a, int n) { useLater<<<(n + 255) / 256, 256>>>(a, n); }

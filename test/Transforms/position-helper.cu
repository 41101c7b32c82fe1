// A helper that reads threadIdx or blockIdx sees other values once a pass
// changes the launch. Before, coalesce tiled this kernel (and split-reduction
// would have shared its loop): twist's threadIdx.x then counted threads of
// another block shape and --verify found a mismatch (exit 3); without
// --verify the output was silently wrong. Now only the passes that keep
// every thread's built-ins run (scalar-replace, texture-memory), each other
// pass says why it did not, through helpers of helpers too.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --memory=both --verify --size n=300,m=77 --out-dir=%t %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: %gpumerge --target=h100 --memory=global --report=json -o %t/g.cu %s | FileCheck --check-prefix=REPORT %s
// RUN: %gpumerge --target=gtx480 --memory=global --report=json -o %t/p.cu %s | FileCheck --check-prefix=PLAIN %s
// VERIFY-NOT: mismatch
// VERIFY: verify hk (global): ok
// VERIFY: verify hk (texture, optimized path{{.*}}): ok
// VERIFY: verify plain (global, optimized path{{.*}}): ok
// REPORT: "name": "hk",
// REPORT: "name": "split-reduction",
// REPORT-NEXT: "reason": "the helper 'twist' reads thread or block built-ins (threadIdx, blockIdx, ...), whose values this pass would change"
// REPORT: "name": "coalesce",
// REPORT-NEXT: "reason": "the helper 'twist' reads
// REPORT: "status": "passed-through"
// PLAIN: "name": "plain",
// PLAIN: "status": "optimized"
__device__ float twist(float v) { return v * (threadIdx.x + 1); }
__device__ float outer(float v) { return twist(v) + 1.0f; }
__device__ float calm(float v) { return v * 0.5f; }

#pragma gpumerge size(n=4096, m=4096)
__global__ void hk(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += outer(a[i * m + j]);
    out[i] = s;
  }
}

// A helper without built-ins does not hold its caller back.
#pragma gpumerge size(n=4096, m=4096)
__global__ void plain(const float *a, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += calm(a[i * m + j]);
    out[i] = s;
  }
}

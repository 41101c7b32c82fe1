// One early return per dimension (the style of Rodinia's gaussian): the two
// are one guard, so merged copies each check both bounds. Before, the
// second `return` stayed inside every merged copy and ended the thread
// before its other copies ran: --verify found a mismatch (exit 3).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --memory=both --verify --size n=67,t=5 --out-dir=%t %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: %gpumerge --target=gtx480 --memory=global --verify --size n=45,t=2 --report=json -o %t/g.cu %s | FileCheck --check-prefix=REPORT %s
// RUN: FileCheck %s < %t/early-returns.global.cu
// VERIFY-NOT: mismatch
// VERIFY: verify elim (global, optimized path{{.*}}): ok
// VERIFY: verify elim (texture{{.*}}): ok
// REPORT: "name": "thread-merge",
// REPORT: "status": "optimized",
// REPORT: "verify": "ok",
// CHECK-LABEL: {{^}}__global__ void elim(
// CHECK-NEXT:    {{^}}  if (!({{.*}} >= n - 1 - t) && !({{.*}} >= n - t)) {
// CHECK-NOT:     return;
// CHECK:         {{^}}}
__global__ void elim(float *m, float *a, int n, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= n - 1 - t) return;
  if (threadIdx.y + blockIdx.y * blockDim.y >= n - t) return;
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  a[n * (r + 1 + t) + (c + t)] -= m[n * (r + 1 + t) + t] * a[n * t + (c + t)];
}

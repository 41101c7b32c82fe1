// Thread positions offset by a scalar (the trailing update of an LU step:
// threads start past row and column k): the guard j < n bounds the launch
// by n - k - 1 threads, so verify infers the domain and both variants are
// verified at awkward sizes. Before: "cannot infer the launch domain ...
// no bounds guard compares the thread position with a size".
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --memory=both --verify --size k=5,n=77 --report=json --out-dir=%t %s > %t/r.json
// RUN: FileCheck %s < %t/r.json
// RUN: %gpumerge --target=gtx285 --memory=both --verify --size k=2,n=45 --out-dir=%t/b %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// VERIFY-NOT: skipped
// VERIFY: verify scale_row (global{{.*}}): ok
// VERIFY: verify update (global{{.*}}): ok
// Without --size, the default sizes (k=67, repaired to n=69) leave one
// thread; verify widens the domain to n - k - 1 = 60 threads.
// RUN: %gpumerge --target=h100 --memory=global --verify --out-dir=%t/c %s | FileCheck --check-prefix=WIDE %s
// WIDE: verify scale_row (global, optimized path, k=8,n=69): ok
// CHECK:      "name": "scale_row",
// CHECK:        "verify": "ok",
// CHECK:          "sizes": {
// CHECK-NEXT:       "k": 5,
// CHECK-NEXT:       "n": 77
// CHECK:      "name": "update",
// CHECK:        "status": "optimized",
// CHECK:        "verify": "ok",
__kernel void scale_row(__global float *a, int k, int n) {
  int j = get_global_id(0) + (k + 1);
  if (j < n)
    a[k * n + j] = a[k * n + j] / a[k * n + k];
}

// Sized for the model as an LU step of a large matrix: at --size's n = 77
// every thread fits on the GPU at once and no merge would pay.
#pragma gpumerge size(k=5, n=4096)
__kernel void update(__global float *a, int k, int n) {
  int j = get_global_id(0) + (k + 1);
  int i = get_global_id(1) + k + 1;
  if ((i < n) && (j < n))
    a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
}

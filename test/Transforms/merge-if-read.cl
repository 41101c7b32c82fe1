// Thread merge with a staged read in an `if` condition inside the tiled
// loop: the condition is kept once (it does not vary between merged copies
// in Y) and reads its tile row without the merge placeholder. Before the
// fix: "use of undeclared '__merge_kx'", exit 4, on gtx285, gtx480, hd5870.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=gtx285 --memory=both --verify --size w=15,h=31,k=5 --out-dir=%t/gtx285 %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: %gpumerge --target=gtx480 --memory=both --verify --size w=15,h=31,k=5 --out-dir=%t/gtx480 %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: %gpumerge --target=hd5870 --memory=both --verify --size w=15,h=31,k=5 --out-dir=%t/hd5870 %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// RUN: %gpumerge --target=gtx480 --memory=global --passes=coalesce,block-merge,thread-merge --merge=block-y=4,thread-y=4 -o %t/forced.cl %s
// RUN: FileCheck %s < %t/forced.cl
// VERIFY-NOT: gpumerge bug
// VERIFY-NOT: mismatch
// VERIFY: verify k (global, optimized path{{.*}}): ok

// CHECK-LABEL: {{^}}__kernel void k(
// CHECK-NOT:   __merge
// CHECK:       {{^ *}}if (b_s[get_local_id(0)][p - p0] > 0.0f) {
// CHECK-NEXT:    {{^ *}}s_0 += a_s[get_local_id(1) * 4][p - p0];
// CHECK-NEXT:    {{^ *}}s_1 += a_s[get_local_id(1) * 4 + 1][p - p0];
// CHECK-NOT:   __merge
__kernel void k(__global const float *a, __global const float *b,
                __global float *c, int w, int h, int k) {
  int x = get_global_id(0); int y = get_global_id(1);
  if (x < w && y < h) { float s = 0.0f;
    for (int p = 0; p < k; p++) { if (b[x * k + p] > 0.0f) s += a[y * k + p]; }
    c[y * w + x] = s; } }

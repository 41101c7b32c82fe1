// Thread positions and set-up assigned after their declarations (C89, as
// older suites write them): `x = blockIdx.x * blockDim.x + threadIdx.x;` is
// the position x, an assignment before the guard stays in the prologue, and
// the kernels are optimized like their C99 spellings. Before: "cannot infer
// the launch domain ... no bounds guard compares the thread position".
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --verify --size w=77,h=45,k=37,n=1001 --report=json --out-dir=%t %s > %t/r.json
// RUN: FileCheck --check-prefix=REPORT %s < %t/r.json
// RUN: %gpumerge --target=gtx285 --lang=opencl --memory=both --verify --size w=77,h=45,k=37,n=1001 --out-dir=%t %s 2>&1 | FileCheck --check-prefix=VERIFY %s
// VERIFY-NOT: mismatch
// VERIFY-NOT: skipped
// VERIFY: verify mm (global, optimized path{{.*}}): ok
// VERIFY: verify mm (texture, optimized path{{.*}}): ok
// VERIFY: verify st (global, optimized path{{.*}}): ok
// VERIFY: verify st (texture, optimized path{{.*}}): ok
// REPORT:      "name": "mm",
// REPORT:          "name": "coalesce",
// REPORT:        "status": "optimized",
// REPORT:        "verify": "ok",
// REPORT:      "name": "st",
// REPORT:          "name": "halo-tile",
// REPORT:        "status": "optimized",
// REPORT:        "verify": "ok",
__global__ void mm(float *a, float *b, float *c, int w, int h, int k) {
  int x, y, p;
  float s;
  x = blockIdx.x * blockDim.x + threadIdx.x;
  y = blockIdx.y * blockDim.y + threadIdx.y;
  s = 0.0f;
  if (x < w && y < h) {
    for (p = 0; p < k; p++)
      s += a[y * k + p] * b[p * w + x];
    c[y * w + x] = s;
  }
}

__global__ void st(float *a, float *b, int n) {
  int i;
  i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    b[i] = a[i - 1] + a[i + 1];
}

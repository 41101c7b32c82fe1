// §3.2 on the naive mm: on a GT200-class target (half-warps, 64-byte
// segments) a[idy][i] is not coalesced (all threads read one element), on
// Fermi and later it is a broadcast; b[i][idx] and c[idy][idx] are.
// RUN: %gpumerge --target=gtx285 --analyze %s | FileCheck --check-prefix=GT200 %s
// RUN: %gpumerge --target=gtx480 --analyze --report=json %s | FileCheck --check-prefix=JSON %s
// RUN: %gpumerge --target=h100 --analyze %s | FileCheck --check-prefix=H100 %s

// GT200: kernel mm
// GT200: read  a[idy*k + i]  kind=loop coalesced=false  (all threads of a half-warp access the same element)
// GT200: read  b[idx + i*w]  kind=loop coalesced=true
// GT200: read  c0[idx + i]  kind=loop coalesced=false
// GT200: write c[idx + idy*w]  kind=predefined coalesced=true
// H100: read  a[idy*k + i]  kind=loop coalesced=true
// H100: read  c0[idx + i]  kind=loop coalesced=false  (a warp touches 5 sectors where 4 would do)
// JSON: "array": "a",
// JSON-NEXT: "coalesced": "true",
// JSON-NEXT: "index": "idy*k + i",
// JSON-NEXT: "kind": "loop",
// JSON-NEXT: "line": 27,
__global__ void mm(const float *a, const float *b, const float *c0, float *c,
                   int w, int h, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[row * k + i] * b[i * w + col]
             + c0[col + i];
    c[row * w + col] = sum;
  }
}

// A loop with a constant trip count is tiled by a divisor of it (at most the
// coalescing width), or not at all: no plan carries a condition that is
// false on constants such as `5 % 32 == 0`. A literal trip
// count needs no check at launch; a macro's is checked by name, since a
// rebuild with -D may change it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpumerge --target=h100 --memory=global --verify --report=json -o %t/h100.cu %s > %t/h100.json
// RUN: FileCheck --check-prefix=H100 %s < %t/h100.json
// RUN: FileCheck --check-prefix=CODE %s < %t/h100.cu
// RUN: %gpumerge --target=gtx285 --memory=global --verify --report=json -o %t/gtx285.cu %s > %t/gtx285.json
// RUN: FileCheck --check-prefix=GT200 %s < %t/gtx285.json
// No precondition anywhere tests a literal trip count.
// RUN: not grep -E '"[0-9]+ % [0-9]+ == 0' %t/h100.json %t/gtx285.json

// H100-LABEL: "name": "five"
// H100:       "(n) >= 512 (the domain holds a whole tile)",
// H100-NEXT:  "a and y do not overlap",
// H100:       "name": "partition-camping",
// H100-NEXT:  "reason": "{{no access has blocks.*|the loop over j0 is a single tile: nothing to rotate}}"
// H100:       "name": "prefetch",
// H100-NEXT:  "reason": "the loop over j0 is a single tile: there is no next tile to load"
// H100:       "tile": "5 (the j loop's constant trip count: 5 divides it, 32 does not)"
// H100:       "status": "optimized",
// H100-NEXT:  "verify": "ok",
// GT200-LABEL: "name": "five"
// GT200:       "tile": "5 (the j loop's constant trip count: 5 divides it, 16 does not)"
// GT200:       "status": "optimized",
// GT200-NEXT:  "verify": "ok",
// CODE-LABEL: {{^}}__global__ void five(
// CODE:       {{^ *}}__shared__ float a_s[512][5];
// CODE:       {{^ *}}for (int j0 = 0; j0 < 5; j0 += 5) {
__global__ void five(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < 5; j++)
      s += a[i * 5 + j] * x[j];
    y[i] = s;
  }
}

// 100 iterations (`<=` 99): tiles of 25 on h100, of 10 on gtx285.
// H100-LABEL: "name": "hundred"
// H100:       "tile": "25 (the j loop's constant trip count: 25 divides it, 32 does not)"
// H100:       "status": "optimized",
// H100-NEXT:  "verify": "ok",
// GT200-LABEL: "name": "hundred"
// GT200:       "tile": "10 (the j loop's constant trip count: 10 divides it, 16 does not)"
// GT200:       "status": "optimized",
// GT200-NEXT:  "verify": "ok",
__global__ void hundred(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j <= 99; j++)
      s += a[i * 100 + j] * x[j];
    y[i] = s;
  }
}

// 37 iterations: no tile of 2 to 32 divides them; the loop is not tiled
// and the report says why.
// H100-LABEL: "name": "prime"
// H100:       "reason": "not convertible here: read a[i * 37 + j] (line {{[0-9]+}}) in the loop over 'j', whose constant trip count no tile of 2 to 32 iterations divides
// H100:       "status": "passed-through",
// H100-NEXT:  "verify": "ok",
__global__ void prime(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < 37; j++)
      s += a[i * 37 + j] * x[j];
    y[i] = s;
  }
}

// A macro's trip count is tiled by a divisor of its value; a rebuild with
// -D that changes it runs the iterations past whole tiles in the remainder
// loop, so there is nothing to check at launch.
// H100-LABEL: "name": "macro"
// H100-NOT:   "KW % 25 == 0
// H100:       "status": "optimized",
// H100-NEXT:  "verify": "ok",
#define KW 100
__global__ void macro(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < KW; j++)
      s += a[i * KW + j] * x[j];
    y[i] = s;
  }
}

// multi: several naive kernels in one file sharing a __device__ helper.
//   scale:  out[i] = alpha * in[i]
//   add:    c[i] = a[i] + b[i]
//   sumsq:  c[i] = sq(a[i]) + sq(b[i])      (calls the helper sq)
//   hypot2: c[y*w+x] = sq(a[y]) + sq(b[x])  (2-D)
// launch: 1-D kernels block (256), grid (ceil(n/256));
//         hypot2 block (16,16), grid (ceil(w/16), ceil(h/16))
__device__ float sq(float v) { return v * v; }

#pragma gpumerge size(n=16777216)
#pragma gpumerge output(out)
__global__ void scale(const float *in, float *out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = alpha * in[i];
}

#pragma gpumerge size(n=16777216)
#pragma gpumerge output(c)
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

#pragma gpumerge size(n=16777216)
#pragma gpumerge output(c)
__global__ void sumsq(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = sq(a[i]) + sq(b[i]);
}

#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(c)
__global__ void hypot2(const float *a, const float *b, float *c, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    c[y * w + x] = sq(a[y]) + sq(b[x]);
}

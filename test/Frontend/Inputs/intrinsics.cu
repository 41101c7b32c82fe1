// Kernel-only CUDA (no #include): the fast intrinsics nvcc knows.
__global__ void fast(int n, const float *a, float *b, unsigned int *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = a[i] * a[i] + 1.0f;
    b[i] = __powf(v, 1.5f) + __log2f(v) + __fdividef(a[i], v) + rsqrtf(v) +
           __saturatef(a[i]) + __expf(-v) + __sinf(a[i]);
    c[i] = __umul24(i, 3u);
  }
}

// sincosf's results through pointers to the kernel's variables: read as
// s = sinf(x); c = cosf(x);.
__global__ void rot(int n, const float *a, float *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s, c;
    sincosf(a[i], &s, &c);
    b[i] = s * 2.0f + c;
  }
}

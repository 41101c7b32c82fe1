// break and continue: the loop holding one is kept as written (not tiled,
// not merged, not unrolled); the rest of the kernel is still optimized.
// Pointer dereferences of a pointer parameter are array accesses.

// The first negative element of each row (w when none).
__global__ void firstneg(const float *a, int *pos, int w, int h) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < h) {
    int p = w;
    for (int x = 0; x < w; x++) {
      if (a[y * w + x] < 0.0f) {
        p = x;
        break;
      }
    }
    pos[y] = p;
  }
}

// Row sums of the non-negative elements.
__global__ void skipneg(const float *a, float *s, int w, int h) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < h) {
    float t = 0.0f;
    for (int x = 0; x < w; x++) {
      if (a[y * w + x] < 0.0f)
        continue;
      t += a[y * w + x];
    }
    s[y] = t;
  }
}

// continue in a while loop would skip the step that ends its body.
__global__ void whilecont(const float *a, float *s, int w, int h) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < h) {
    float t = 0.0f;
    int x = 0;
    while (x < w) {
      if (a[y * w + x] < 0.0f)
        continue;
      t += a[y * w + x];
      x++;
    }
    s[y] = t;
  }
}

// mm, then a loop that doubles the sum at most four times, while it is small:
// the k loop is tiled, the loop with the break kept.
__global__ void mmcap(const float *a, const float *b, float *c, int w, int h,
                      int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++)
      sum += a[y * k + i] * b[i * w + x];
    for (int r = 0; r < 4; r++) {
      if (sum > 1.0f)
        break;
      sum = sum * 2.0f;
    }
    c[y * w + x] = sum;
  }
}

// *(p + i), *(p - 1 + i): p[i], p[-1 + i].
__global__ void deref(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n)
    *(b + i) = 2.0f * *(a + i) + *(a - 1 + i);
}

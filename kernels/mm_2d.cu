// mm_2d: matrix multiplication C = A * B on true 2-D arrays whose rows are N
// floats long (N is the row pitch): C is h x w, A is h x k, B is k x w, with
// w <= N and k <= N; c[y][x] = sum_i a[y][i] * b[i][x]. Each array is
// allocated with h (or k) rows of N floats. One thread per element of C.
// launch: block (16,16), grid (ceil(w/16), ceil(h/16))
#define N 1024

#pragma gpumerge size(w=1024, h=1024, k=1024)
#pragma gpumerge output(c)
__global__ void mm_2d(const float (*a)[N], const float (*b)[N], float (*c)[N],
                      int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float sum = 0.0f;
    for (int i = 0; i <= k - 1; i++)
      sum += a[y][i] * b[i][x];
    c[y][x] = sum;
  }
}

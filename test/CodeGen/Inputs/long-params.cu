// clang-format off
// Row pointers as size_t (a sparse matrix's CSR, as many libraries keep
// them) and a long scale: the host passes its size_t * and long * to the
// launch, which must take them as declared.
#include <cuda_runtime.h>
#include <stddef.h>

__global__ void csr_rows(size_t n, const size_t *row_start, const long *scale,
                         float *row_len) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    row_len[i] = (float)((row_start[i + 1] - row_start[i]) * scale[i]);
}

__global__ void scale_ll(int n, const long long *v, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * (float)v[i];
}

// A table of 64-bit elements through a typedef (HPCC RandomAccess's
// u64Int): the OpenCL translation verify runs must not say `long long`,
// a 128-bit type in OpenCL C.
typedef unsigned long long u64Int;
__global__ void init_table(u64Int *table, const u64Int size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < size)
    table[i] = i;
}

void run(size_t n, const size_t *d_rows, const long *d_scale, float *d_len,
         const long long *d_v, float *d_out) {
  csr_rows<<<(unsigned)((n + 255) / 256), 256>>>(n, d_rows, d_scale, d_len);
  scale_ll<<<(int)((n + 255) / 256), 256>>>((int)n, d_v, d_out);
}

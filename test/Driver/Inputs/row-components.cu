// Three components of a row per thread, s apart (a cross product's layout),
// in a grid-stride loop: threads i and i + 15 both write element 3i + 45
// when s = 45 (one its second component, the other its first), a race in
// the input itself, so verify must not choose such sizes.
__global__ void components(int n, float *out, const float *a, int s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float *row = out + 3 * i;
    row[0] = a[i];
    row[s] = 2.0f * a[i];
    row[2 * s] = 3.0f * a[i];
  }
}

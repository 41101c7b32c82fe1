// The first row takes a source value, the others an update from the row
// above: the read of h at row i - 1 sits in the branch row 0 never takes,
// at an index that moves with the row stride ny.
__kernel void boundary(__global const float *src, __global float *e,
                       __global const float *h, int t, int nx, int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < nx && j < ny) {
    if (i == 0)
      e[i * ny + j] = src[t];
    else
      e[i * ny + j] = e[i * ny + j] - 0.5f * (h[i * ny + j] - h[(i - 1) * ny + j]);
  }
}

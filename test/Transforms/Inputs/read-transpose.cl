// The read-side transpose: the write is coalesced, the read of in moves by
// h elements between neighbouring threads.
__kernel void rtp(__global const float *in, __global float *out, int w, int h) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x < w && y < h)
    out[y * w + x] = in[x * h + y];
}

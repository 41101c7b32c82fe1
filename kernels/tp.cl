// tp: matrix transpose, in is h x w (row-major), out is w x h:
// out[x*h + y] = in[y*w + x]. One work-item per element (x = column of in).
// The position is written with group/local ids instead of get_global_id.
// launch: global (w, h) rounded up to a multiple of local (16,16)
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(out)
__kernel void tp(__global const float *in, __global float *out, int w, int h) {
  int x = get_group_id(0) * get_local_size(0) + get_local_id(0);
  int y = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// mv_gridstride: y = A * x as mv.cl computes it, A h x w (row-major), with
// the rows walked by a grid-stride loop: any NDRange computes every row, each
// work-item taking rows i, i + get_global_size(0), ...
// launch: global (132 * 256), local (256), sized for the device, not the data
#pragma gpumerge size(w=4096, h=4096)
#pragma gpumerge output(y)
__kernel void mv_gridstride(__global const float *a, __global const float *x,
                            __global float *y, int w, int h) {
  for (int i = get_global_id(0); i < h; i += get_global_size(0)) {
    float sum = 0.0f;
    for (int j = 0; j < w; j++)
      sum += a[i * w + j] * x[j];
    y[i] = sum;
  }
}

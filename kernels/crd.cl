// crd: complex sum reduction (Yang et al., Fig. 26), with a global barrier.
// n complex numbers are stored interleaved as floats: the real part of
// element j at in[2*j], the imaginary part at in[2*j + 1]; out[0] + i*out[1]
// = sum_j (in[2*j] + i*in[2*j + 1]).
// Phase 1: each of nt work-items sums the strided chunk of complex values
// j = i, i + nt, ... into partial[2*i] (real) and partial[2*i + 1]
// (imaginary). gpumerge_global_sync() is a global barrier: the compiler
// splits the kernel into two launches there. Phase 2: work-item 0 sums the
// nt partials into out[0] and out[1].
// launch: global (nt) rounded up to a multiple of local (256)
// Declared, never defined: a hint to gpumerge.
void gpumerge_global_sync(void);

#pragma gpumerge size(n=8388608, nt=4096)
#pragma gpumerge output(out)
__kernel void crd(__global const float *in, __global float *partial,
                  __global float *out, int n, int nt) {
  int i = get_global_id(0);
  if (i < nt) {
    float re = 0.0f, im = 0.0f;
    for (int j = i; j < n; j += nt) {
      re += in[2 * j];
      im += in[2 * j + 1];
    }
    partial[2 * i] = re;
    partial[2 * i + 1] = im;
  }
  gpumerge_global_sync();
  if (i == 0) {
    float total_re = 0.0f, total_im = 0.0f;
    for (int j = 0; j < nt; j++) {
      total_re += partial[2 * j];
      total_im += partial[2 * j + 1];
    }
    out[0] = total_re;
    out[1] = total_im;
  }
}

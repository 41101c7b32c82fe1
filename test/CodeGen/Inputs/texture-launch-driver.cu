// Calls the launcher of kernels/mv.cu's texture variant for gtx480 (texture
// objects, written to mv.texture.cu beside this file's build) as a naive
// launch of mv would be made, once with arrays the textures can be made
// over and once with x misaligned for them. The arrays are addresses only:
// the launches are recorded, not run (test/tools/launch-recorder.cpp).
#include "mv.texture.cu"

#include <cstdio>

int main() {
  const int w = 1003, h = 37;
  const float *a = (const float *)0x100000000ULL;
  const float *x = (const float *)0x200000000ULL;
  float *y = (float *)0x300000000ULL;
  std::printf("aligned\n");
  gpumerge_launch_mv((h + 255) / 256, 256, 0, 0, a, x, y, w, h);
  std::printf("misaligned\n");
  gpumerge_launch_mv((h + 255) / 256, 256, 0, 0, a, x + 1, y, w, h);
  return 0;
}

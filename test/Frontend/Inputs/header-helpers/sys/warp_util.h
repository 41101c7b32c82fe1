// A library's header (searched with -isystem): gpumerge does not lower its
// functions, and looks into them for reads of the thread's position.
#ifndef WARP_UTIL_H
#define WARP_UTIL_H
namespace wu {
__device__ inline unsigned laneId() { return threadIdx.x & 31u; }
__device__ inline unsigned laneIdAsm() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ inline float half(float v) { return 0.5f * v; }
} // namespace wu
#endif

//===- Prelude.cpp - Declarations a naive kernel file assumes -------------===//
#include "Frontend/Prelude.h"

namespace gpumerge {

const char CudaKernelOnlyPrelude[] = R"(
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __restrict__ __restrict
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
typedef unsigned long size_t;
__device__ void __syncthreads(void);
__device__ void __threadfence(void);
__device__ void gpumerge_global_sync(void);
#define GPUMERGE_MATH1(f) __device__ float f##f(float); __device__ double f(double); __device__ float f(float);
#define GPUMERGE_MATH2(f) __device__ float f##f(float, float); __device__ double f(double, double); __device__ float f(float, float);
GPUMERGE_MATH1(sqrt) GPUMERGE_MATH1(rsqrt) GPUMERGE_MATH1(exp) GPUMERGE_MATH1(log)
GPUMERGE_MATH1(fabs) GPUMERGE_MATH1(sin) GPUMERGE_MATH1(cos) GPUMERGE_MATH1(tan)
GPUMERGE_MATH1(floor) GPUMERGE_MATH1(ceil) GPUMERGE_MATH1(tanh) GPUMERGE_MATH1(exp2)
GPUMERGE_MATH1(log2) GPUMERGE_MATH1(round) GPUMERGE_MATH1(trunc)
GPUMERGE_MATH2(pow) GPUMERGE_MATH2(fmin) GPUMERGE_MATH2(fmax) GPUMERGE_MATH2(atan2)
GPUMERGE_MATH2(fmod)
__device__ float fmaf(float, float, float); __device__ double fma(double, double, double);
__device__ float __expf(float); __device__ float __logf(float);
__device__ float __powf(float, float); __device__ float __log2f(float);
__device__ float __log10f(float); __device__ float __exp10f(float);
__device__ float __sinf(float); __device__ float __cosf(float);
__device__ float __tanf(float); __device__ float __fdividef(float, float);
__device__ float __saturatef(float); __device__ float log10f(float);
__device__ unsigned __umul24(unsigned, unsigned); __device__ int __mul24(int, int);
__device__ int min(int, int); __device__ int max(int, int);
__device__ unsigned min(unsigned, unsigned); __device__ unsigned max(unsigned, unsigned);
__device__ float min(float, float); __device__ float max(float, float);
__device__ double min(double, double); __device__ double max(double, double);
__device__ int abs(int);
__device__ int atomicAdd(int *, int); __device__ unsigned atomicAdd(unsigned *, unsigned);
__device__ float atomicAdd(float *, float); __device__ int atomicMax(int *, int);
__device__ int atomicMin(int *, int); __device__ int atomicExch(int *, int);
__device__ int atomicCAS(int *, int, int);
template <typename T> __device__ T __ldg(const T *);
// CUDA's SIMD intrinsics: bytes or halfwords of an unsigned int.
#define GPUMERGE_SIMD1(f) __device__ unsigned f##2(unsigned); __device__ unsigned f##4(unsigned);
#define GPUMERGE_SIMD2(f) __device__ unsigned f##2(unsigned, unsigned); __device__ unsigned f##4(unsigned, unsigned);
GPUMERGE_SIMD1(__vabs) GPUMERGE_SIMD1(__vabsss) GPUMERGE_SIMD1(__vneg) GPUMERGE_SIMD1(__vnegss)
GPUMERGE_SIMD2(__vabsdiffs) GPUMERGE_SIMD2(__vabsdiffu) GPUMERGE_SIMD2(__vadd) GPUMERGE_SIMD2(__vsub)
GPUMERGE_SIMD2(__vaddss) GPUMERGE_SIMD2(__vaddus) GPUMERGE_SIMD2(__vsubss) GPUMERGE_SIMD2(__vsubus)
GPUMERGE_SIMD2(__vavgs) GPUMERGE_SIMD2(__vavgu) GPUMERGE_SIMD2(__vhaddu) GPUMERGE_SIMD2(__vmaxs)
GPUMERGE_SIMD2(__vmaxu) GPUMERGE_SIMD2(__vmins) GPUMERGE_SIMD2(__vminu) GPUMERGE_SIMD2(__vsads)
GPUMERGE_SIMD2(__vsadu)
#define GPUMERGE_SIMD_CMP(c) GPUMERGE_SIMD2(__vcmp##c) GPUMERGE_SIMD2(__vset##c)
GPUMERGE_SIMD_CMP(eq) GPUMERGE_SIMD_CMP(ne) GPUMERGE_SIMD_CMP(ges) GPUMERGE_SIMD_CMP(geu)
GPUMERGE_SIMD_CMP(gts) GPUMERGE_SIMD_CMP(gtu) GPUMERGE_SIMD_CMP(les) GPUMERGE_SIMD_CMP(leu)
GPUMERGE_SIMD_CMP(lts) GPUMERGE_SIMD_CMP(ltu)
)";

const char CudaDialectPrelude[] = R"(
// The original GPGPU compiler's dialect: bare thread positions. A local of
// the same name shadows these.
static __device__ const int idx = 0, idy = 0, tidx = 0, tidy = 0, bidx = 0, bidy = 0;
)";

const char CudaWithSdkPrelude[] = R"(
__device__ void gpumerge_global_sync(void);
// What CUDA 12 and 13 removed and code written for older toolkits (which the
// user's build may still use) calls: declared here so that it parses. Never
// compiled: gpumerge keeps host code as written.
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaThreadExit(void);
cudaError_t cudaThreadSetLimit(enum cudaLimit, size_t);
cudaError_t cudaThreadGetLimit(size_t *, enum cudaLimit);
cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache);
cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *);
// Texture references (texture<T>, tex1Dfetch on them): a device-side type,
// as the old headers declared it, and the host calls that bind them.
struct gpumerge_textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
};
template <class T, int dim = 1,
          enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture
    : public gpumerge_textureReference {};
template <class T, int dim, enum cudaTextureReadMode mode>
__device__ T tex1Dfetch(texture<T, dim, mode>, int);
template <class T, int dim, enum cudaTextureReadMode mode>
__device__ T tex1D(texture<T, dim, mode>, float);
template <class T, int dim, enum cudaTextureReadMode mode>
__device__ T tex2D(texture<T, dim, mode>, float, float);
template <class T, int dim, enum cudaTextureReadMode mode>
__device__ T tex3D(texture<T, dim, mode>, float, float, float);
template <class... A> cudaError_t cudaBindTexture(A &&...);
template <class... A> cudaError_t cudaBindTexture2D(A &&...);
template <class... A> cudaError_t cudaBindTextureToArray(A &&...);
template <class... A> cudaError_t cudaUnbindTexture(A &&...);
#endif
// Surface objects' loads and stores (surf2Dwrite(v, s, x * 4, y)): nvcc
// declares them in surface_indirect_functions.h, which Clang 16's CUDA
// wrapper does not include (its __nv_tex_surf_handler knows textures only).
// Declared here, and the header kept out, so that a file using them parses;
// a kernel calling one is then passed through.
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#define GPUMERGE_SURF(f, ...)                                                  \
  template <class T> __device__ void f##write(T, cudaSurfaceObject_t,          \
      __VA_ARGS__, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);            \
  template <class T> __device__ void f##read(T *, cudaSurfaceObject_t,         \
      __VA_ARGS__, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);            \
  template <class T> __device__ T f##read(cudaSurfaceObject_t, __VA_ARGS__,    \
      cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
GPUMERGE_SURF(surf1D, int) GPUMERGE_SURF(surf2D, int, int)
GPUMERGE_SURF(surf3D, int, int, int) GPUMERGE_SURF(surf1DLayered, int, int)
GPUMERGE_SURF(surf2DLayered, int, int, int) GPUMERGE_SURF(surfCubemap, int, int, int)
GPUMERGE_SURF(surfCubemapLayered, int, int, int)
#undef GPUMERGE_SURF
// The sm_80 warp reductions: declared by crt/sm_80_rt.h, which Clang 16's
// CUDA wrapper does not include; cooperative_groups/reduce.h calls them.
__device__ unsigned __reduce_add_sync(unsigned, unsigned);
__device__ unsigned __reduce_min_sync(unsigned, unsigned);
__device__ unsigned __reduce_max_sync(unsigned, unsigned);
__device__ int __reduce_add_sync(unsigned, int);
__device__ int __reduce_min_sync(unsigned, int);
__device__ int __reduce_max_sync(unsigned, int);
__device__ unsigned __reduce_and_sync(unsigned, unsigned);
__device__ unsigned __reduce_or_sync(unsigned, unsigned);
__device__ unsigned __reduce_xor_sync(unsigned, unsigned);
// CUDA 12.8's atomic built-ins (`__nv_atomic_load_n(p, __NV_ATOMIC_RELAXED)`,
// `__nv_atomic_fetch_add`): nvcc knows them itself, and their orders and
// scopes are enums of crt/device_functions.h, which Clang 16's CUDA wrapper
// does not include. Declared here so that a file calling them parses; a
// kernel calling one is then passed through as an atomic operation.
// Clang's wrapper has already included that header, without them (they are
// under __CUDACC__ there), so its guard keeps it from coming again: the
// names can be macros.
#define __NV_ATOMIC_RELAXED 0
#define __NV_ATOMIC_CONSUME 1
#define __NV_ATOMIC_ACQUIRE 2
#define __NV_ATOMIC_RELEASE 3
#define __NV_ATOMIC_ACQ_REL 4
#define __NV_ATOMIC_SEQ_CST 5
#define __NV_THREAD_SCOPE_THREAD 0
#define __NV_THREAD_SCOPE_BLOCK 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_DEVICE 3
#define __NV_THREAD_SCOPE_SYSTEM 4
#define GPUMERGE_NV_ATOMIC(R, f) template <class T, class... A> __device__ R __nv_atomic_##f(T *, A...);
GPUMERGE_NV_ATOMIC(T, load_n) GPUMERGE_NV_ATOMIC(void, load)
GPUMERGE_NV_ATOMIC(void, store_n) GPUMERGE_NV_ATOMIC(void, store)
GPUMERGE_NV_ATOMIC(T, exchange_n) GPUMERGE_NV_ATOMIC(void, exchange)
GPUMERGE_NV_ATOMIC(bool, compare_exchange_n) GPUMERGE_NV_ATOMIC(bool, compare_exchange)
GPUMERGE_NV_ATOMIC(T, fetch_add) GPUMERGE_NV_ATOMIC(T, fetch_sub)
GPUMERGE_NV_ATOMIC(T, fetch_and) GPUMERGE_NV_ATOMIC(T, fetch_or)
GPUMERGE_NV_ATOMIC(T, fetch_xor) GPUMERGE_NV_ATOMIC(T, fetch_min)
GPUMERGE_NV_ATOMIC(T, fetch_max)
#undef GPUMERGE_NV_ATOMIC
__device__ void __nv_atomic_thread_fence(int, int = __NV_THREAD_SCOPE_SYSTEM);
// nvcc's min and max are __host__ __device__ (crt/math_functions.h and
// .hpp); Clang 16's CUDA headers give them to device code only, and host
// code calls them (`max(1, repeat)` in main).
#define GPUMERGE_HOST_MINMAX(T, A, B) __host__ T min(A, B); __host__ T max(A, B);
GPUMERGE_HOST_MINMAX(int, int, int)
GPUMERGE_HOST_MINMAX(unsigned, unsigned, unsigned)
GPUMERGE_HOST_MINMAX(unsigned, int, unsigned)
GPUMERGE_HOST_MINMAX(unsigned, unsigned, int)
GPUMERGE_HOST_MINMAX(long, long, long)
GPUMERGE_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
GPUMERGE_HOST_MINMAX(unsigned long, long, unsigned long)
GPUMERGE_HOST_MINMAX(unsigned long, unsigned long, long)
GPUMERGE_HOST_MINMAX(long long, long long, long long)
GPUMERGE_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
GPUMERGE_HOST_MINMAX(unsigned long long, long long, unsigned long long)
GPUMERGE_HOST_MINMAX(unsigned long long, unsigned long long, long long)
GPUMERGE_HOST_MINMAX(float, float, float)
GPUMERGE_HOST_MINMAX(double, double, double)
GPUMERGE_HOST_MINMAX(double, float, double)
GPUMERGE_HOST_MINMAX(double, double, float)
#undef GPUMERGE_HOST_MINMAX
)";

const char OmpFallbackHeader[] = R"(
#ifndef GPUMERGE_OMP_H
#define GPUMERGE_OMP_H
#ifdef __cplusplus
extern "C" {
#endif
typedef struct { void *gpumerge_opaque; } omp_lock_t;
typedef struct { void *gpumerge_opaque; } omp_nest_lock_t;
void omp_set_num_threads(int);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int);
int omp_get_dynamic(void);
void omp_set_nested(int);
int omp_get_nested(void);
int omp_get_level(void);
int omp_get_num_devices(void);
int omp_get_default_device(void);
int omp_is_initial_device(void);
double omp_get_wtime(void);
double omp_get_wtick(void);
void omp_init_lock(omp_lock_t *);
void omp_destroy_lock(omp_lock_t *);
void omp_set_lock(omp_lock_t *);
void omp_unset_lock(omp_lock_t *);
int omp_test_lock(omp_lock_t *);
void omp_init_nest_lock(omp_nest_lock_t *);
void omp_destroy_nest_lock(omp_nest_lock_t *);
void omp_set_nest_lock(omp_nest_lock_t *);
void omp_unset_nest_lock(omp_nest_lock_t *);
int omp_test_nest_lock(omp_nest_lock_t *);
#ifdef __cplusplus
}
#endif
#endif
)";

const char OpenCLPrelude[] = R"(
void gpumerge_global_sync(void);
)";

} // namespace gpumerge

//===- launch-recorder.cpp - What a CUDA program launches, without a GPU --===//
//
// Preloaded into a CUDA program linked with the shared runtime (nvcc
// -cudart shared), it stands in for the entry points that `k<<<grid, block,
// smem, stream>>>(args)` calls as CUDA 13's nvcc writes it (older toolkits
// may call others) and prints each launch instead of running it:
//
//   launch mv(float const*, ...) grid 5,1,1 block 256,1,1 smem 0
//
// so a test sees which kernel each launch of gpumerge's host code runs, and
// with which grid, on a machine without a GPU or a driver. It stands in for
// what the launchers of the texture-object form call too, as a device with
// textures of up to 2^27 texels aligned to 512 bytes would answer, and
// prints the texture objects made and destroyed:
//
//   texture 1 over 0x100000000, 16000 bytes, 32-bit channels 1,0,0,0
//   destroy texture 1
//
// The program must not touch memory through the runtime (no cudaMalloc):
// its arrays are addresses only.
//
//===----------------------------------------------------------------------===//
#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {
thread_local dim3 Grid, Block;
thread_local size_t Smem;
thread_local void *Stream;

/// The name of the function at \p Offset in the executable. nvcc gives the
/// host side of kernels local symbols, which dladdr does not see: they are
/// read from nm's listing of the executable.
std::string nameAt(unsigned long Offset) {
  static std::map<unsigned long, std::string> Names;
  if (Names.empty()) {
    std::string Nm = "nm -C /proc/" + std::to_string(getpid()) + "/exe";
    if (FILE *P = popen(Nm.c_str(), "r")) {
      char Line[4096];
      while (std::fgets(Line, sizeof Line, P)) {
        char *End = nullptr;
        unsigned long Address = std::strtoul(Line, &End, 16);
        std::string Rest = End; // " t name\n"
        if (Rest.size() < 4 || Rest[0] != ' ' || Rest[2] != ' ')
          continue;
        Rest = Rest.substr(3);
        if (Rest.back() == '\n')
          Rest.pop_back();
        Names[Address] = Rest;
      }
      pclose(P);
    }
  }
  auto It = Names.find(Offset);
  return It == Names.end() ? "?" : It->second;
}
} // namespace

extern "C" unsigned __cudaPushCallConfiguration(dim3 G, dim3 B, size_t S,
                                                struct CUstream_st *St) {
  Grid = G;
  Block = B;
  Smem = S;
  Stream = St;
  return 0;
}

extern "C" cudaError_t __cudaPopCallConfiguration(dim3 *G, dim3 *B, size_t *S,
                                                  void *St) {
  *G = Grid;
  *B = Block;
  *S = Smem;
  *static_cast<void **>(St) = Stream;
  return cudaSuccess;
}

/// The kernel's handle is its host function's address.
extern "C" cudaError_t __cudaGetKernel(cudaKernel_t *K, const void *Fun) {
  *K = (cudaKernel_t)Fun;
  return cudaSuccess;
}

extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t K, dim3 G, dim3 B,
                                          void **, size_t S, cudaStream_t) {
  Dl_info Info;
  std::string Name = "?";
  if (dladdr((void *)K, &Info))
    Name = nameAt((unsigned long)K - (unsigned long)Info.dli_fbase);
  std::printf("launch %s grid %u,%u,%u block %u,%u,%u smem %zu\n", Name.c_str(),
              G.x, G.y, G.z, B.x, B.y, B.z, S);
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetDevice(int *Device) {
  *Device = 0;
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetAttribute(int *Value,
                                              cudaDeviceAttr Attribute, int) {
  *Value = Attribute == cudaDevAttrMaxTexture1DLinearWidth ? 1 << 27
           : Attribute == cudaDevAttrTextureAlignment      ? 512
                                                           : 0;
  return cudaSuccess;
}

extern "C" cudaChannelFormatDesc
cudaCreateChannelDesc(int X, int Y, int Z, int W, cudaChannelFormatKind F) {
  return {X, Y, Z, W, F};
}

extern "C" cudaError_t cudaCreateTextureObject(cudaTextureObject_t *Texture,
                                               const cudaResourceDesc *Resource,
                                               const cudaTextureDesc *,
                                               const cudaResourceViewDesc *) {
  static cudaTextureObject_t Made = 0;
  *Texture = ++Made;
  const cudaChannelFormatDesc &C = Resource->res.linear.desc;
  std::printf("texture %llu over %p, %zu bytes, 32-bit channels %d,%d,%d,%d\n",
              (unsigned long long)*Texture, Resource->res.linear.devPtr,
              Resource->res.linear.sizeInBytes, C.x / 32, C.y / 32, C.z / 32,
              C.w / 32);
  return cudaSuccess;
}

extern "C" cudaError_t cudaDestroyTextureObject(cudaTextureObject_t Texture) {
  std::printf("destroy texture %llu\n", (unsigned long long)Texture);
  return cudaSuccess;
}

extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetLastError() { return cudaSuccess; }

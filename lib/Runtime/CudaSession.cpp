//===- CudaSession.cpp - Run CUDA kernels through NVRTC and the driver ----===//
//
// One device, its primary context, the null stream. Programs, buffers and
// texture objects are owned by the session and named by small integer ids
// (buffers and texture objects share one numbering, as OpenCL's buffers and
// images do); every driver failure becomes an llvm::Error naming the call,
// the code, its symbolic name and the driver's description.
//
//===----------------------------------------------------------------------===//
#include "Runtime/CudaSession.h"
#include "Runtime/CudaApi.h"
#include "Runtime/Isolate.h"
#include "Runtime/Nvrtc.h"
#include "Runtime/NvrtcAhead.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>

namespace gpumerge {

using namespace cuda;

namespace {

llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message.str());
}

/// The driver entry points gpumerge calls, resolved once per process.
struct DriverApi {
  void *Handle = nullptr;
  std::string Library;
  CUresult (*Init)(unsigned) = nullptr;
  CUresult (*DriverGetVersion)(int *) = nullptr;
  CUresult (*DeviceGetCount)(int *) = nullptr;
  CUresult (*DeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*DeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*ModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*ModuleUnload)(CUmodule) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*ModuleGetGlobal)(CUdeviceptr *, std::size_t *, CUmodule,
                              const char *) = nullptr;
  CUresult (*FuncGetAttribute)(int *, int, CUfunction) = nullptr;
  /// CUDA 12.4 and later; null before (then argument counts go unchecked).
  CUresult (*FuncGetParamInfo)(CUfunction, std::size_t, std::size_t *,
                               std::size_t *) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr *, std::size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, std::size_t) = nullptr;
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **) = nullptr;
  CUresult (*EventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
  CUresult (*TexObjectCreate)(CUtexObject *, const ResourceDesc *,
                              const TextureDesc *, const void *) = nullptr;
  CUresult (*TexObjectDestroy)(CUtexObject) = nullptr;
  CUresult (*GetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char **) = nullptr;
};

/// Loads libcuda.so.1 and resolves every entry point; the error says what
/// is missing (prefixed "no CUDA device: " by create()).
llvm::Expected<const DriverApi &> driverApi() {
  static DriverApi Api;
  static std::string LoadError;
  static std::once_flag Once;
  std::call_once(Once, [] {
    const char *Env = std::getenv("GPUMERGE_LIBCUDA");
    Api.Library = Env && *Env ? Env : "libcuda.so.1";
    Api.Handle = dlopen(Api.Library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Api.Handle) {
      const char *Why = dlerror();
      LoadError = "cannot load " + Api.Library +
                  " (the NVIDIA driver library; is the driver installed?): " +
                  (Why ? Why : "not found");
      return;
    }
    std::vector<std::string> Missing;
    // The first of \p Names that the library has (versioned names first:
    // cuda.h maps cuMemAlloc to cuMemAlloc_v2, and so on).
    auto Resolve = [&](auto &Fn, std::initializer_list<const char *> Names,
                       bool Required = true) {
      for (const char *N : Names)
        if (void *Sym = dlsym(Api.Handle, N)) {
          Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(Sym);
          return;
        }
      if (Required)
        Missing.push_back(*Names.begin());
    };
    Resolve(Api.Init, {"cuInit"});
    Resolve(Api.DriverGetVersion, {"cuDriverGetVersion"});
    Resolve(Api.DeviceGetCount, {"cuDeviceGetCount"});
    Resolve(Api.DeviceGet, {"cuDeviceGet"});
    Resolve(Api.DeviceGetName, {"cuDeviceGetName"});
    Resolve(Api.DeviceGetAttribute, {"cuDeviceGetAttribute"});
    Resolve(Api.DevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
    Resolve(Api.DevicePrimaryCtxRelease,
            {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
    Resolve(Api.CtxSetCurrent, {"cuCtxSetCurrent"});
    Resolve(Api.CtxSynchronize, {"cuCtxSynchronize"});
    Resolve(Api.ModuleLoadData, {"cuModuleLoadData"});
    Resolve(Api.ModuleUnload, {"cuModuleUnload"});
    Resolve(Api.ModuleGetFunction, {"cuModuleGetFunction"});
    Resolve(Api.ModuleGetGlobal, {"cuModuleGetGlobal_v2"});
    Resolve(Api.FuncGetAttribute, {"cuFuncGetAttribute"});
    Resolve(Api.FuncGetParamInfo, {"cuFuncGetParamInfo"}, /*Required=*/false);
    Resolve(Api.MemAlloc, {"cuMemAlloc_v2"});
    Resolve(Api.MemFree, {"cuMemFree_v2"});
    Resolve(Api.MemcpyHtoD, {"cuMemcpyHtoD_v2"});
    Resolve(Api.MemcpyDtoH, {"cuMemcpyDtoH_v2"});
    Resolve(Api.LaunchKernel, {"cuLaunchKernel"});
    Resolve(Api.EventCreate, {"cuEventCreate"});
    Resolve(Api.EventRecord, {"cuEventRecord"});
    Resolve(Api.EventSynchronize, {"cuEventSynchronize"});
    Resolve(Api.EventElapsedTime,
            {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
    Resolve(Api.EventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
    Resolve(Api.TexObjectCreate, {"cuTexObjectCreate"});
    Resolve(Api.TexObjectDestroy, {"cuTexObjectDestroy"});
    Resolve(Api.GetErrorName, {"cuGetErrorName"});
    Resolve(Api.GetErrorString, {"cuGetErrorString"});
    if (!Missing.empty()) {
      LoadError = Api.Library + " lacks " + llvm::join(Missing, ", ") +
                  ": the driver is too old (gpumerge needs CUDA 11.2 or "
                  "later)";
      Api.Handle = nullptr;
    }
  });
  if (!Api.Handle)
    return makeError(LoadError);
  return Api;
}

/// "cuFoo(what) failed: CUDA_ERROR_NAME (N): description".
llvm::Error cuError(const DriverApi &Api, llvm::StringRef Call, CUresult R,
                    llvm::StringRef What = "") {
  const char *Name = nullptr, *Text = nullptr;
  if (Api.GetErrorName(R, &Name) != CUDA_SUCCESS)
    Name = nullptr;
  if (Api.GetErrorString(R, &Text) != CUDA_SUCCESS)
    Text = nullptr;
  std::string C = Call.str();
  if (!What.empty())
    C += "(" + What.str() + ")";
  return makeError(llvm::formatv("{0} failed: {1} ({2}){3}{4}", C,
                                 Name ? Name : "unknown CUDA error", R,
                                 Text ? ": " : "", Text ? Text : "")
                       .str());
}

/// What a failing cuInit means for the user.
std::string initFailure(CUresult R) {
  switch (R) {
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable GPU is visible (CUDA_ERROR_NO_DEVICE)";
  case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    return "the driver is too old (CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)";
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    return "the driver library does not match the loaded kernel module "
           "(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH; reboot or reinstall the "
           "driver)";
  case CUDA_ERROR_STUB_LIBRARY:
    return "the driver library is the toolkit's stub, not a driver "
           "(CUDA_ERROR_STUB_LIBRARY)";
  default:
    return "cuInit failed with CUDA error " + std::to_string(R);
  }
}

std::string versionText(int V) {
  return std::to_string(V / 1000) + "." + std::to_string(V % 1000 / 10);
}

/// \p V rounded up to a multiple of \p A (a power of two).
std::size_t alignUp(std::size_t V, std::size_t A) {
  return (V + A - 1) & ~(A - 1);
}

} // namespace

struct CudaSession::Impl {
  const DriverApi *Api = nullptr;
  CudaDeviceInfo Info;
  CUdevice Device = 0;
  CUcontext Context = nullptr;
  CUevent Start = nullptr, End = nullptr;
  int MaxThreadsPerBlock = 0, MaxShared = 0, TexAlign = 0, MaxTex1D = 0;

  struct Program {
    CUmodule Module = nullptr;
    std::vector<std::string> Stubbed;
    std::map<std::string, std::string> Lowered; ///< name → mangled name
    std::map<std::string, CUfunction> Functions;
  };
  std::vector<Program> Programs;
  /// A buffer (device memory, aligned for textures inside the allocation)
  /// or a texture object over one.
  struct Object {
    CUdeviceptr Base = 0, Ptr = 0;
    std::size_t Size = 0;
    CUtexObject Texture = 0;
    bool IsTexture = false;
  };
  std::vector<Object> Objects;
  /// The compiles expectBuilds began.
  std::unique_ptr<NvrtcAhead> Ahead;

  ~Impl() {
    if (!Api || !Context)
      return;
    Api->CtxSynchronize();
    for (Object &O : Objects) {
      if (O.IsTexture && O.Texture)
        Api->TexObjectDestroy(O.Texture);
      else if (O.Base)
        Api->MemFree(O.Base);
    }
    for (Program &P : Programs)
      if (P.Module)
        Api->ModuleUnload(P.Module);
    if (Start)
      Api->EventDestroy(Start);
    if (End)
      Api->EventDestroy(End);
    Api->DevicePrimaryCtxRelease(Device);
  }

  llvm::Expected<CUfunction> function(unsigned Program,
                                      const std::string &Name);
  llvm::Error launch(unsigned Program, const std::string &Name,
                     const std::vector<KernelArg> &Args, const NDRange &Range,
                     bool Timed);
};

CudaSession::CudaSession() : P(std::make_unique<Impl>()) {}
CudaSession::~CudaSession() = default;

llvm::Expected<std::unique_ptr<CudaSession>>
CudaSession::create(unsigned Index) {
  auto NoDevice = [](const llvm::Twine &Why) {
    return makeError("no CUDA device: " + Why);
  };
  auto Api = driverApi();
  if (!Api)
    return NoDevice(llvm::toString(Api.takeError()));
  const DriverApi &A = *Api;
  if (CUresult R = A.Init(0); R != CUDA_SUCCESS)
    return NoDevice(initFailure(R));
  int Count = 0;
  if (CUresult R = A.DeviceGetCount(&Count); R != CUDA_SUCCESS)
    return NoDevice(llvm::toString(cuError(A, "cuDeviceGetCount", R)));
  if (Count == 0)
    return NoDevice("the driver sees no GPU (cuDeviceGetCount is 0)");
  if (int(Index) >= Count)
    return NoDevice(llvm::formatv("there is no device {0}: the driver sees "
                                  "{1} (devices 0 to {2})",
                                  Index, Count, Count - 1)
                        .str());
  auto Compiler = Nvrtc::get();
  if (!Compiler)
    return NoDevice(llvm::toString(Compiler.takeError()));

  std::unique_ptr<CudaSession> S(new CudaSession());
  Impl &I = *S->P;
  I.Api = &A;
  I.Info.Index = Index;
  if (CUresult R = A.DeviceGet(&I.Device, int(Index)); R != CUDA_SUCCESS)
    return cuError(A, "cuDeviceGet", R);
  char Name[256] = {};
  if (CUresult R = A.DeviceGetName(Name, sizeof(Name) - 1, I.Device);
      R != CUDA_SUCCESS)
    return cuError(A, "cuDeviceGetName", R);
  I.Info.Name = Name;
  int Version = 0;
  if (A.DriverGetVersion(&Version) != CUDA_SUCCESS)
    Version = 0;
  I.Info.Driver =
      "CUDA driver " + versionText(Version) + ", NVRTC " + Compiler->version();
  struct {
    int *Into;
    int Attribute;
  } Attributes[] = {
      {&I.Info.Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&I.Info.Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&I.MaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {&I.MaxShared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
      {&I.TexAlign, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT},
      {&I.MaxTex1D, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH},
  };
  for (auto &At : Attributes)
    if (CUresult R = A.DeviceGetAttribute(At.Into, At.Attribute, I.Device);
        R != CUDA_SUCCESS)
      return cuError(A, "cuDeviceGetAttribute", R,
                     std::to_string(At.Attribute));
  CUcontext Ctx = nullptr;
  if (CUresult R = A.DevicePrimaryCtxRetain(&Ctx, I.Device); R != CUDA_SUCCESS)
    return cuError(A, "cuDevicePrimaryCtxRetain", R);
  I.Context = Ctx;
  if (CUresult R = A.CtxSetCurrent(Ctx); R != CUDA_SUCCESS)
    return cuError(A, "cuCtxSetCurrent", R);
  if (CUresult R = A.EventCreate(&I.Start, EventDefault); R != CUDA_SUCCESS)
    return cuError(A, "cuEventCreate", R);
  if (CUresult R = A.EventCreate(&I.End, EventDefault); R != CUDA_SUCCESS)
    return cuError(A, "cuEventCreate", R);
  return llvm::Expected<std::unique_ptr<CudaSession>>(std::move(S));
}

llvm::Expected<CudaDeviceInfo> CudaSession::probe(unsigned Index) {
  std::string Output;
  llvm::Error Failed = runIsolated(
      [&](SendFn Send) {
        auto S = create(Index);
        std::string Line;
        llvm::raw_string_ostream OS(Line);
        if (!S) {
          OS << llvm::json::Value(llvm::toString(S.takeError()));
          Send("error " + OS.str() + "\n");
          return;
        }
        const CudaDeviceInfo &I = (*S)->info();
        OS << llvm::json::Object{{"name", I.Name},
                                 {"driver", I.Driver},
                                 {"major", I.Major},
                                 {"minor", I.Minor}};
        Send("device " + OS.str() + "\n");
      },
      60, Output);
  llvm::StringRef Line = llvm::StringRef(Output).split('\n').first;
  bool IsDevice = Line.consume_front("device ");
  if (IsDevice || Line.consume_front("error ")) {
    llvm::consumeError(std::move(Failed));
    auto J = llvm::json::parse(Line);
    if (!J)
      return J.takeError();
    if (!IsDevice)
      return makeError(J->getAsString() ? J->getAsString()->str() : Line.str());
    const llvm::json::Object *O = J->getAsObject();
    CudaDeviceInfo I;
    I.Index = Index;
    I.Name = O->getString("name").value_or("").str();
    I.Driver = O->getString("driver").value_or("").str();
    I.Major = int(O->getInteger("major").value_or(0));
    I.Minor = int(O->getInteger("minor").value_or(0));
    return I;
  }
  if (Failed)
    return makeError("no CUDA device: opening it " +
                     llvm::toString(std::move(Failed)));
  return makeError("no CUDA device: the probe said nothing");
}

std::string CudaSession::deviceName() const { return P->Info.Name; }
std::string CudaSession::driverVersion() const { return P->Info.Driver; }
const CudaDeviceInfo &CudaSession::info() const { return P->Info; }

llvm::Expected<unsigned>
CudaSession::buildProgram(const std::string &Source, const std::string &Options,
                          const std::vector<std::string> &Kernels) {
  auto Compiler = Nvrtc::get();
  if (!Compiler)
    return Compiler.takeError();
  NvrtcRequest Request{Source, splitBuildOptions(Options), Kernels};
  std::optional<llvm::Expected<NvrtcOutput>> Ahead;
  if (P->Ahead)
    Ahead = P->Ahead->take(Request);
  llvm::Expected<NvrtcOutput> Out =
      Ahead ? std::move(*Ahead)
            : Compiler->compile(Source, "gpumerge.cu", P->Info.Major,
                                P->Info.Minor, Request.Options, Kernels);
  if (!Out)
    return Out.takeError();
  Impl::Program Prog;
  Prog.Stubbed = Out->StubbedHeaders;
  Prog.Lowered = Out->LoweredNames;
  if (Out->IsPtx)
    Out->Binary.push_back('\0'); // PTX is loaded as a C string
  if (CUresult R = P->Api->ModuleLoadData(&Prog.Module, Out->Binary.data());
      R != CUDA_SUCCESS)
    return cuError(*P->Api, "cuModuleLoadData", R,
                   Out->IsPtx ? "PTX " + Out->Arch : "CUBIN " + Out->Arch);
  P->Programs.push_back(std::move(Prog));
  return unsigned(P->Programs.size() - 1);
}

void CudaSession::expectBuilds(const std::vector<BuildRequest> &Builds) {
  auto Compiler = Nvrtc::get();
  if (!Compiler) { // buildProgram says why
    llvm::consumeError(Compiler.takeError());
    return;
  }
  if (!P->Ahead)
    P->Ahead = std::make_unique<NvrtcAhead>(
        *Compiler, P->Info.Major, P->Info.Minor, NvrtcAhead::defaultWorkers());
  for (const BuildRequest &B : Builds)
    P->Ahead->add({B.Source, splitBuildOptions(B.Options), B.Kernels});
}

llvm::Error CudaSession::setGlobal(unsigned Program, const std::string &Name,
                                   const std::vector<std::uint8_t> &Data) {
  if (Program >= P->Programs.size())
    return makeError("setGlobal(" + Name + "): no program " +
                     llvm::Twine(Program));
  CUdeviceptr Ptr = 0;
  std::size_t Bytes = 0;
  if (CUresult R = P->Api->ModuleGetGlobal(
          &Ptr, &Bytes, P->Programs[Program].Module, Name.c_str());
      R != CUDA_SUCCESS)
    return cuError(*P->Api, "cuModuleGetGlobal", R, Name);
  if (Data.size() > Bytes)
    return makeError(llvm::formatv("setGlobal({0}): {1} bytes for a global "
                                   "of {2}",
                                   Name, Data.size(), Bytes)
                         .str());
  if (CUresult R = P->Api->MemcpyHtoD(Ptr, Data.data(), Data.size());
      R != CUDA_SUCCESS)
    return cuError(*P->Api, "cuMemcpyHtoD", R, Name);
  return llvm::Error::success();
}

std::vector<std::string> CudaSession::stubbedHeaders(unsigned Program) const {
  return Program < P->Programs.size() ? P->Programs[Program].Stubbed
                                      : std::vector<std::string>{};
}

std::size_t CudaSession::textureAlignment() const {
  return std::size_t(std::max(P->TexAlign, 256));
}

llvm::Expected<unsigned>
CudaSession::createBuffer(const std::vector<std::uint8_t> &Init) {
  // Aligned for texture objects inside a slightly larger allocation: the
  // generated launchers fall back to the naive kernel on a pointer not
  // aligned to textureAlignment(), and verify should run the optimized one.
  std::size_t Align = textureAlignment();
  Impl::Object O;
  O.Size = Init.size();
  std::size_t Bytes = alignUp(std::max<std::size_t>(O.Size, 4), Align) + Align;
  if (CUresult R = P->Api->MemAlloc(&O.Base, Bytes); R != CUDA_SUCCESS)
    return cuError(*P->Api, "cuMemAlloc", R, std::to_string(Bytes) + " bytes");
  O.Ptr = alignUp(O.Base, Align);
  P->Objects.push_back(O);
  if (!Init.empty())
    if (CUresult R = P->Api->MemcpyHtoD(O.Ptr, Init.data(), Init.size());
        R != CUDA_SUCCESS)
      return cuError(*P->Api, "cuMemcpyHtoD", R);
  return unsigned(P->Objects.size() - 1);
}

llvm::Expected<std::vector<std::uint8_t>>
CudaSession::readBuffer(unsigned Buffer) {
  if (Buffer >= P->Objects.size() || P->Objects[Buffer].IsTexture)
    return makeError("readBuffer: no buffer " + llvm::Twine(Buffer));
  const Impl::Object &O = P->Objects[Buffer];
  std::vector<std::uint8_t> Data(O.Size);
  if (!Data.empty())
    if (CUresult R = P->Api->MemcpyDtoH(Data.data(), O.Ptr, O.Size);
        R != CUDA_SUCCESS)
      return cuError(*P->Api, "cuMemcpyDtoH", R);
  return Data;
}

std::size_t CudaSession::maxTexelViewWidth() const {
  return std::size_t(std::max(P->MaxTex1D, 0));
}

void CudaSession::release(unsigned Object) {
  if (Object >= P->Objects.size())
    return;
  Impl::Object &O = P->Objects[Object];
  if (O.IsTexture && O.Texture)
    P->Api->TexObjectDestroy(O.Texture);
  else if (!O.IsTexture && O.Base)
    P->Api->MemFree(O.Base);
  O = Impl::Object{};
  O.IsTexture = true; // no buffer: readBuffer and views refuse it
}

void CudaSession::releaseProgram(unsigned Program) {
  if (Program >= P->Programs.size() || !P->Programs[Program].Module)
    return;
  P->Api->ModuleUnload(P->Programs[Program].Module);
  P->Programs[Program] = Impl::Program{};
}

llvm::Expected<unsigned> CudaSession::createTexelView(unsigned Buffer,
                                                      TexelChannel Channel,
                                                      std::size_t Width,
                                                      unsigned Channels) {
  if (Buffer >= P->Objects.size() || P->Objects[Buffer].IsTexture)
    return makeError("createTexelView: no buffer " + llvm::Twine(Buffer));
  if (Channels != 1 && Channels != 4)
    return makeError("createTexelView: " + llvm::Twine(Channels) +
                     " channels (1 or 4)");
  if (Width == 0 || Width > maxTexelViewWidth())
    return makeError("createTexelView: " + llvm::Twine(Width) + " elements; " +
                     P->Info.Name + " allows 1 to " +
                     llvm::Twine(maxTexelViewWidth()) +
                     " (maxTexture1DLinear)");
  Impl::Object View;
  View.IsTexture = true;
  ResourceDesc Res;
  std::memset(&Res, 0, sizeof(Res));
  Res.resType = CU_RESOURCE_TYPE_LINEAR;
  Res.res.linear.devPtr = P->Objects[Buffer].Ptr;
  Res.res.linear.format = Channel == TexelChannel::Float ? CU_AD_FORMAT_FLOAT
                          : Channel == TexelChannel::Int
                              ? CU_AD_FORMAT_SIGNED_INT32
                              : CU_AD_FORMAT_UNSIGNED_INT32;
  Res.res.linear.numChannels = Channels;
  Res.res.linear.sizeInBytes = Width * Channels * 4;
  TextureDesc Tex;
  std::memset(&Tex, 0, sizeof(Tex));
  // cudaReadModeElementType: integers come back as integers (the runtime
  // sets this flag for integer formats; floats need nothing).
  if (Channel != TexelChannel::Float)
    Tex.flags = TrsfReadAsInteger;
  if (CUresult R = P->Api->TexObjectCreate(&View.Texture, &Res, &Tex, nullptr);
      R != CUDA_SUCCESS)
    return cuError(*P->Api, "cuTexObjectCreate", R,
                   std::to_string(Width) + " texels");
  P->Objects.push_back(View);
  return unsigned(P->Objects.size() - 1);
}

llvm::Expected<CUfunction>
CudaSession::Impl::function(unsigned Program, const std::string &Name) {
  if (Program >= Programs.size())
    return makeError("launch(" + Name + "): no program " +
                     llvm::Twine(Program));
  Impl::Program &Prog = Programs[Program];
  auto It = Prog.Functions.find(Name);
  if (It != Prog.Functions.end())
    return It->second;
  CUfunction F = nullptr;
  // A C++ kernel's name is mangled (extern "C" ones are not): the name
  // NVRTC lowered it to, when it was named at build time.
  auto Lowered = Prog.Lowered.find(Name);
  const std::string &Symbol =
      Lowered != Prog.Lowered.end() ? Lowered->second : Name;
  CUresult R = Api->ModuleGetFunction(&F, Prog.Module, Symbol.c_str());
  if (R != CUDA_SUCCESS)
    return cuError(*Api, "cuModuleGetFunction", R, Name);
  Prog.Functions[Name] = F;
  return F;
}

llvm::Error CudaSession::Impl::launch(unsigned Program, const std::string &Name,
                                      const std::vector<KernelArg> &Args,
                                      const NDRange &Range, bool Timed) {
  if (Range.Dims < 1 || Range.Dims > 3)
    return makeError("launch(" + Name + "): " + llvm::Twine(Range.Dims) +
                     " dimensions; CUDA allows 1 to 3");
  unsigned Grid[3] = {1, 1, 1}, Block[3] = {1, 1, 1};
  for (unsigned D = 0; D < Range.Dims; ++D) {
    if (Range.Local[D] == 0 || Range.Global[D] == 0 ||
        Range.Global[D] % Range.Local[D] != 0)
      return makeError(llvm::formatv("launch({0}): dimension {1} has {2} "
                                     "threads in blocks of {3}; CUDA needs "
                                     "whole blocks of a given size",
                                     Name, D, Range.Global[D], Range.Local[D])
                           .str());
    Block[D] = unsigned(Range.Local[D]);
    Grid[D] = unsigned(Range.Global[D] / Range.Local[D]);
  }
  auto F = function(Program, Name);
  if (!F)
    return F.takeError();
  // A block the kernel cannot take (its registers): say so before the
  // driver's CUDA_ERROR_INVALID_VALUE does.
  int MaxThreads = 0;
  if (Api->FuncGetAttribute(&MaxThreads,
                            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                            *F) == CUDA_SUCCESS &&
      MaxThreads > 0 && Block[0] * Block[1] * Block[2] > unsigned(MaxThreads))
    return makeError(llvm::formatv("launch({0}): too many resources: a block "
                                   "of {1} threads, but the kernel allows {2} "
                                   "with its registers and shared memory",
                                   Name, Block[0] * Block[1] * Block[2],
                                   MaxThreads)
                         .str());
  if (Api->FuncGetParamInfo) {
    std::size_t Offset = 0, Size = 0;
    for (size_t I = 0; I < Args.size(); ++I)
      if (Api->FuncGetParamInfo(*F, I, &Offset, &Size) != CUDA_SUCCESS)
        return makeError(llvm::formatv("launch({0}): kernel '{0}' takes {1} "
                                       "argument(s), {2} given",
                                       Name, I, Args.size())
                             .str());
    if (Api->FuncGetParamInfo(*F, Args.size(), &Offset, &Size) == CUDA_SUCCESS)
      return makeError(llvm::formatv("launch({0}): kernel '{0}' takes more "
                                     "than the {1} argument(s) given",
                                     Name, Args.size())
                           .str());
  }
  std::vector<CUdeviceptr> Pointers(Args.size());
  std::vector<void *> Params(Args.size());
  for (size_t I = 0; I < Args.size(); ++I) {
    const KernelArg &A = Args[I];
    switch (A.ArgKind) {
    case KernelArg::Kind::Buffer: {
      if (A.BufferId >= Objects.size())
        return makeError(llvm::formatv("launch({0}): argument {1} names buffer "
                                       "{2}, but there are {3}",
                                       Name, I, A.BufferId, Objects.size())
                             .str());
      const Object &O = Objects[A.BufferId];
      Pointers[I] = O.IsTexture ? O.Texture : O.Ptr;
      Params[I] = &Pointers[I];
      break;
    }
    case KernelArg::Kind::Scalar:
      Params[I] = const_cast<std::uint8_t *>(A.Bytes.data());
      break;
    case KernelArg::Kind::LocalMemory:
      return makeError("launch(" + Name +
                       "): __local memory arguments are OpenCL's; CUDA "
                       "kernels declare their shared memory");
    }
  }
  if (Timed)
    if (CUresult R = Api->EventRecord(Start, nullptr); R != CUDA_SUCCESS)
      return cuError(*Api, "cuEventRecord", R);
  CUresult R =
      Api->LaunchKernel(*F, Grid[0], Grid[1], Grid[2], Block[0], Block[1],
                        Block[2], 0, nullptr, Params.data(), nullptr);
  if (R == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    return makeError("launch(" + Name + "): too many resources (" +
                     llvm::toString(cuError(*Api, "cuLaunchKernel", R)) + ")");
  if (R != CUDA_SUCCESS)
    return cuError(*Api, "cuLaunchKernel", R, Name);
  if (Timed)
    if (CUresult R = Api->EventRecord(End, nullptr); R != CUDA_SUCCESS)
      return cuError(*Api, "cuEventRecord", R);
  // A fault in the kernel shows here (CUDA_ERROR_ILLEGAL_ADDRESS).
  if (CUresult R = Api->CtxSynchronize(); R != CUDA_SUCCESS)
    return cuError(*Api, "the kernel", R, Name);
  return llvm::Error::success();
}

llvm::Error CudaSession::launch(unsigned Program, const std::string &KernelName,
                                const std::vector<KernelArg> &Args,
                                const NDRange &Range) {
  return P->launch(Program, KernelName, Args, Range, /*Timed=*/false);
}

llvm::Expected<double>
CudaSession::launchTimed(unsigned Program, const std::string &KernelName,
                         const std::vector<KernelArg> &Args,
                         const NDRange &Range) {
  if (auto E = P->launch(Program, KernelName, Args, Range, /*Timed=*/true))
    return E;
  float Ms = 0;
  if (CUresult R = P->Api->EventElapsedTime(&Ms, P->Start, P->End);
      R != CUDA_SUCCESS)
    return cuError(*P->Api, "cuEventElapsedTime", R, KernelName);
  return double(Ms);
}

llvm::Expected<CudaSession::KernelAttributes>
CudaSession::attributes(unsigned Program, const std::string &KernelName) {
  auto F = P->function(Program, KernelName);
  if (!F)
    return F.takeError();
  KernelAttributes A;
  P->Api->FuncGetAttribute(&A.Registers, CU_FUNC_ATTRIBUTE_NUM_REGS, *F);
  P->Api->FuncGetAttribute(&A.SharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                           *F);
  P->Api->FuncGetAttribute(&A.MaxThreadsPerBlock,
                           CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, *F);
  return A;
}

} // namespace gpumerge

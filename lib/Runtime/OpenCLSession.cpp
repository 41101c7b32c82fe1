//===- OpenCLSession.cpp - Run OpenCL kernels through the ICD loader ------===//
//
// One platform, one device (CPU preferred: PoCL on this project's machines),
// one context and one in-order queue. Programs and buffers are owned by the
// session and named by small integer ids; every OpenCL failure becomes an
// llvm::Error naming the OpenCL call, the code and its symbolic name.
//
//===----------------------------------------------------------------------===//
#include "Runtime/OpenCLSession.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <CL/cl.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <utility>

using namespace gpumerge;

namespace {

/// The symbolic name of an OpenCL error code ("CL_INVALID_WORK_GROUP_SIZE").
const char *clErrorName(cl_int Code) {
  switch (Code) {
#define GPUMERGE_CL_ERROR(Name)                                                \
  case Name:                                                                   \
    return #Name;
    GPUMERGE_CL_ERROR(CL_SUCCESS)
    GPUMERGE_CL_ERROR(CL_DEVICE_NOT_FOUND)
    GPUMERGE_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    GPUMERGE_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    GPUMERGE_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    GPUMERGE_CL_ERROR(CL_OUT_OF_RESOURCES)
    GPUMERGE_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    GPUMERGE_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    GPUMERGE_CL_ERROR(CL_MEM_COPY_OVERLAP)
    GPUMERGE_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    GPUMERGE_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    GPUMERGE_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    GPUMERGE_CL_ERROR(CL_MAP_FAILURE)
    GPUMERGE_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    GPUMERGE_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    GPUMERGE_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    GPUMERGE_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    GPUMERGE_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    GPUMERGE_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    GPUMERGE_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    GPUMERGE_CL_ERROR(CL_INVALID_VALUE)
    GPUMERGE_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    GPUMERGE_CL_ERROR(CL_INVALID_PLATFORM)
    GPUMERGE_CL_ERROR(CL_INVALID_DEVICE)
    GPUMERGE_CL_ERROR(CL_INVALID_CONTEXT)
    GPUMERGE_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    GPUMERGE_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    GPUMERGE_CL_ERROR(CL_INVALID_HOST_PTR)
    GPUMERGE_CL_ERROR(CL_INVALID_MEM_OBJECT)
    GPUMERGE_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    GPUMERGE_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    GPUMERGE_CL_ERROR(CL_INVALID_SAMPLER)
    GPUMERGE_CL_ERROR(CL_INVALID_BINARY)
    GPUMERGE_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    GPUMERGE_CL_ERROR(CL_INVALID_PROGRAM)
    GPUMERGE_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    GPUMERGE_CL_ERROR(CL_INVALID_KERNEL_NAME)
    GPUMERGE_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    GPUMERGE_CL_ERROR(CL_INVALID_KERNEL)
    GPUMERGE_CL_ERROR(CL_INVALID_ARG_INDEX)
    GPUMERGE_CL_ERROR(CL_INVALID_ARG_VALUE)
    GPUMERGE_CL_ERROR(CL_INVALID_ARG_SIZE)
    GPUMERGE_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    GPUMERGE_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    GPUMERGE_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    GPUMERGE_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    GPUMERGE_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    GPUMERGE_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    GPUMERGE_CL_ERROR(CL_INVALID_EVENT)
    GPUMERGE_CL_ERROR(CL_INVALID_OPERATION)
    GPUMERGE_CL_ERROR(CL_INVALID_GL_OBJECT)
    GPUMERGE_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    GPUMERGE_CL_ERROR(CL_INVALID_MIP_LEVEL)
    GPUMERGE_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    GPUMERGE_CL_ERROR(CL_INVALID_PROPERTY)
    GPUMERGE_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    GPUMERGE_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    GPUMERGE_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    GPUMERGE_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef GPUMERGE_CL_ERROR
  // Codes of later OpenCL versions and extensions, which cl.h hides when
  // CL_TARGET_OPENCL_VERSION is 120; an ICD may still return them.
  case -69:
    return "CL_INVALID_PIPE_SIZE";
  case -70:
    return "CL_INVALID_DEVICE_QUEUE";
  case -71:
    return "CL_INVALID_SPEC_ID";
  case -72:
    return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  default:
    return "unknown OpenCL error";
  }
}

llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message.str());
}

/// "clFoo(what) failed: CL_NAME (-N)"; \p What names the object (a kernel),
/// or is empty.
llvm::Error clError(llvm::StringRef Function, cl_int Code,
                    llvm::StringRef What = "") {
  std::string Call = Function.str();
  if (!What.empty())
    Call += "(" + What.str() + ")";
  return makeError(Call + " failed: " + clErrorName(Code) + " (" +
                   llvm::Twine(Code) + ")");
}

std::string deviceString(cl_device_id Device, cl_device_info Param) {
  std::size_t Size = 0;
  if (clGetDeviceInfo(Device, Param, 0, nullptr, &Size) != CL_SUCCESS ||
      Size == 0)
    return "";
  std::string S(Size, '\0');
  if (clGetDeviceInfo(Device, Param, Size, S.data(), nullptr) != CL_SUCCESS)
    return "";
  // The returned string is NUL-terminated; drop the terminator.
  S.resize(std::strlen(S.c_str()));
  return S;
}

/// Whether the space-separated \p List holds the token \p Name.
bool hasToken(llvm::StringRef List, llvm::StringRef Name) {
  llvm::SmallVector<llvm::StringRef, 32> Tokens;
  List.split(Tokens, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef T : Tokens)
    if (T.trim() == Name)
      return true;
  return false;
}

/// The OpenCL driver (ICD) libraries the ICD loader will load, in its order.
/// Where ocl-icd looks: OCL_ICD_FILENAMES (libraries, ':'-separated), then
/// OCL_ICD_VENDORS (a directory of .icd files, one .icd file, or a
/// library), else OPENCL_VENDOR_PATH or /etc/OpenCL/vendors.
std::vector<std::string> driverLibraries() {
  std::vector<std::string> Libraries;
  auto AddIcdFile = [&](const llvm::Twine &Path) {
    auto Text = llvm::MemoryBuffer::getFile(Path);
    if (!Text)
      return;
    llvm::StringRef Name = (*Text)->getBuffer().trim();
    if (!Name.empty())
      Libraries.push_back(Name.str());
  };
  auto AddIcdDirectory = [&](llvm::StringRef Dir) {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      if (llvm::StringRef(It->path()).endswith(".icd"))
        AddIcdFile(It->path());
  };
  if (const char *Files = std::getenv("OCL_ICD_FILENAMES")) {
    llvm::SmallVector<llvm::StringRef, 4> Names;
    llvm::StringRef(Files).split(Names, ':', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef Name : Names)
      Libraries.push_back(Name.str());
  }
  const char *Vendors = std::getenv("OCL_ICD_VENDORS");
  if (Vendors && *Vendors) {
    if (llvm::sys::fs::is_directory(Vendors))
      AddIcdDirectory(Vendors);
    else if (llvm::StringRef(Vendors).endswith(".icd"))
      AddIcdFile(Vendors);
    else
      Libraries.push_back(Vendors);
  } else {
    const char *Dir = std::getenv("OPENCL_VENDOR_PATH");
    AddIcdDirectory(Dir && *Dir ? Dir : "/etc/OpenCL/vendors");
  }
  return Libraries;
}

// Why the drivers need care: gpumerge links Debian's libLLVM-16 and
// libclang-cpp16 into the global symbol scope, and PoCL 3.1 links libLLVM-15
// and libclang-cpp15. The 15 libraries carry unversioned template
// instantiations (PassModel vtables, all of clang::) that a plain dlopen()
// binds to the already-loaded 16 ones, and PoCL's first clBuildProgram then
// crashes inside LLVM (pocl/pocl#1421).

#if defined(__SANITIZE_ADDRESS__)
/// Under AddressSanitizer, whose runtime drops RTLD_DEEPBIND: each driver is
/// loaded into a link-map namespace of its own (dlmopen), where gpumerge's
/// LLVM is not visible at all, and its platforms are asked for directly
/// (clIcdGetPlatformIDsKHR, the entry the ICD loader itself calls). Every
/// later call goes through the ICD loader, which dispatches on the object.
/// The handles stay open for the process. The ICD loader is then told of no
/// driver (OCL_ICD_VENDORS names none): it would load each one again into
/// the global scope, whose binding into LLVM 16 breaks the process's exit.
std::vector<cl_platform_id> platformsFromIsolatedDrivers() {
  static std::once_flag Once;
  static std::vector<cl_platform_id> Platforms;
  std::call_once(Once, [] {
    using GetPlatformsFn = cl_int (*)(cl_uint, cl_platform_id *, cl_uint *);
    std::vector<std::string> Libraries = driverLibraries();
    ::unsetenv("OCL_ICD_FILENAMES");
    ::setenv("OCL_ICD_VENDORS",
             "gpumerge-drivers-loaded-in-their-own-namespace", 1);
    for (const std::string &Library : Libraries) {
      void *Handle = dlmopen(LM_ID_NEWLM, Library.c_str(), RTLD_NOW);
      if (!Handle)
        continue;
      // How the ICD loader finds the entry: drivers need not export it.
      using LookupFn = void *(*)(const char *);
      auto Lookup = reinterpret_cast<LookupFn>(
          dlsym(Handle, "clGetExtensionFunctionAddress"));
      auto Get = Lookup ? reinterpret_cast<GetPlatformsFn>(
                              Lookup("clIcdGetPlatformIDsKHR"))
                        : nullptr;
      cl_uint N = 0;
      if (!Get || Get(0, nullptr, &N) != CL_SUCCESS || N == 0)
        continue;
      std::vector<cl_platform_id> Found(N);
      if (Get(N, Found.data(), nullptr) == CL_SUCCESS)
        Platforms.insert(Platforms.end(), Found.begin(), Found.end());
    }
  });
  return Platforms;
}
#else
/// Loads every driver the ICD loader will find, each with RTLD_DEEPBIND,
/// before the loader's own dlopen() finds it already loaded: deep binding
/// makes the driver and its dependencies look in their own libraries first.
/// The handles stay open for the process.
void preloadDriversWithDeepBinding() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    // A driver that fails to load here is reported by the ICD loader later.
    for (const std::string &Library : driverLibraries())
      (void)dlopen(Library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  });
}
#endif

/// OpenCL rejects 0-byte buffers; give them this many bytes instead.
constexpr std::size_t MinBufferBytes = 4;

} // namespace

//===----------------------------------------------------------------------===//
// OpenCLSession
//===----------------------------------------------------------------------===//

struct OpenCLSession::Impl {
  cl_platform_id Platform = nullptr;
  cl_device_id Device = nullptr;
  cl_context Context = nullptr;
  cl_command_queue Queue = nullptr;

  std::vector<cl_program> Programs;
  std::vector<cl_mem> Buffers;
  /// The size asked for, which readBuffer returns (a 0-byte request gets
  /// MinBufferBytes of device memory).
  std::vector<std::size_t> BufferSizes;
  std::map<std::pair<unsigned, std::string>, cl_kernel> Kernels;

  std::string DeviceName, DriverVersion;
  bool Double = false;
  bool Images = false;
  std::size_t ImageMaxBuffer = 0;

  ~Impl() {
    if (Queue)
      clFinish(Queue);
    for (auto &KV : Kernels)
      clReleaseKernel(KV.second);
    for (cl_program Prog : Programs)
      if (Prog)
        clReleaseProgram(Prog);
    for (cl_mem Buf : Buffers)
      if (Buf)
        clReleaseMemObject(Buf);
    if (Queue)
      clReleaseCommandQueue(Queue);
    if (Context)
      clReleaseContext(Context);
  }

  llvm::Expected<cl_kernel> kernel(unsigned Program, const std::string &Name);
  /// Checks the range and arguments, enqueues the kernel and waits for it;
  /// \p Event (when given) receives the launch's event.
  llvm::Error enqueue(unsigned Program, const std::string &KernelName,
                      const std::vector<KernelArg> &Args, const NDRange &Range,
                      cl_event *Event);
};

OpenCLSession::OpenCLSession() : P(std::make_unique<Impl>()) {}
OpenCLSession::~OpenCLSession() = default;

llvm::Expected<std::unique_ptr<OpenCLSession>> OpenCLSession::create() {
  static const char *NoPlatform =
      "no OpenCL platform found: install pocl-opencl-icd (OpenCL on the CPU)";
#if defined(__SANITIZE_ADDRESS__)
  std::vector<cl_platform_id> Platforms = platformsFromIsolatedDrivers();
  if (Platforms.empty())
    return makeError(NoPlatform);
  cl_int Err = CL_SUCCESS;
#else
  preloadDriversWithDeepBinding();
  cl_uint NumPlatforms = 0;
  cl_int Err = clGetPlatformIDs(0, nullptr, &NumPlatforms);
  // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no ICD is
  // registered; treat it like an empty list.
  if (Err == -1001 || (Err == CL_SUCCESS && NumPlatforms == 0))
    return makeError(NoPlatform);
  if (Err != CL_SUCCESS)
    return clError("clGetPlatformIDs", Err);
  std::vector<cl_platform_id> Platforms(NumPlatforms);
  Err = clGetPlatformIDs(NumPlatforms, Platforms.data(), nullptr);
  if (Err != CL_SUCCESS)
    return clError("clGetPlatformIDs", Err);
#endif

  // A CPU device on any platform first (PoCL), else the first device at all.
  std::unique_ptr<OpenCLSession> S(new OpenCLSession());
  Impl &I = *S->P;
  for (cl_device_type Type : {cl_device_type(CL_DEVICE_TYPE_CPU),
                              cl_device_type(CL_DEVICE_TYPE_ALL)}) {
    for (cl_platform_id Platform : Platforms) {
      cl_device_id Device = nullptr;
      if (clGetDeviceIDs(Platform, Type, 1, &Device, nullptr) == CL_SUCCESS &&
          Device) {
        I.Platform = Platform;
        I.Device = Device;
        break;
      }
    }
    if (I.Device)
      break;
  }
  if (!I.Device)
    return makeError("no OpenCL device found on " +
                     llvm::Twine(Platforms.size()) +
                     " platform(s): install pocl-opencl-icd (OpenCL on the "
                     "CPU)");

#if defined(__SANITIZE_ADDRESS__)
  // The ICD loader does not know a platform it did not load and rejects it in
  // the properties; without them the context is the device's platform's.
  cl_context_properties *Props = nullptr;
#else
  cl_context_properties Props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(I.Platform),
      0};
#endif
  I.Context = clCreateContext(Props, 1, &I.Device, nullptr, nullptr, &Err);
  if (Err != CL_SUCCESS)
    return clError("clCreateContext", Err);
  // Profiling on: --tune times launches by their events; it costs nothing
  // measurable on an in-order queue.
  I.Queue = clCreateCommandQueue(I.Context, I.Device, CL_QUEUE_PROFILING_ENABLE,
                                 &Err);
  if (Err != CL_SUCCESS)
    return clError("clCreateCommandQueue", Err);

  I.DeviceName = deviceString(I.Device, CL_DEVICE_NAME);
  std::size_t Size = 0;
  std::string PlatformVersion;
  if (clGetPlatformInfo(I.Platform, CL_PLATFORM_VERSION, 0, nullptr, &Size) ==
          CL_SUCCESS &&
      Size > 0) {
    PlatformVersion.resize(Size);
    if (clGetPlatformInfo(I.Platform, CL_PLATFORM_VERSION, Size,
                          PlatformVersion.data(), nullptr) != CL_SUCCESS)
      PlatformVersion.clear();
    PlatformVersion.resize(std::strlen(PlatformVersion.c_str()));
  }
  I.DriverVersion =
      PlatformVersion + ", driver " + deviceString(I.Device, CL_DRIVER_VERSION);
  cl_device_fp_config DoubleConfig = 0;
  if (clGetDeviceInfo(I.Device, CL_DEVICE_DOUBLE_FP_CONFIG,
                      sizeof(DoubleConfig), &DoubleConfig,
                      nullptr) != CL_SUCCESS)
    DoubleConfig = 0;
  I.Double =
      DoubleConfig != 0 ||
      hasToken(deviceString(I.Device, CL_DEVICE_EXTENSIONS), "cl_khr_fp64");
  cl_bool ImageSupport = CL_FALSE;
  if (clGetDeviceInfo(I.Device, CL_DEVICE_IMAGE_SUPPORT, sizeof(ImageSupport),
                      &ImageSupport, nullptr) != CL_SUCCESS)
    ImageSupport = CL_FALSE;
  I.Images = ImageSupport == CL_TRUE;
  if (I.Images && clGetDeviceInfo(I.Device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
                                  sizeof(I.ImageMaxBuffer), &I.ImageMaxBuffer,
                                  nullptr) != CL_SUCCESS)
    I.ImageMaxBuffer = 0;
  return llvm::Expected<std::unique_ptr<OpenCLSession>>(std::move(S));
}

std::string OpenCLSession::deviceName() const { return P->DeviceName; }
std::string OpenCLSession::driverVersion() const { return P->DriverVersion; }
bool OpenCLSession::supportsDouble() const { return P->Double; }
bool OpenCLSession::supportsImages() const { return P->Images; }

llvm::Expected<unsigned>
OpenCLSession::buildProgram(const std::string &Source,
                            const std::string &Options) {
  const char *Text = Source.c_str();
  std::size_t Length = Source.size();
  cl_int Err = CL_SUCCESS;
  cl_program Prog =
      clCreateProgramWithSource(P->Context, 1, &Text, &Length, &Err);
  if (Err != CL_SUCCESS)
    return clError("clCreateProgramWithSource", Err);

  // Our emitters target OpenCL C 1.2; say so unless the caller chose.
  std::string AllOptions = Options;
  if (llvm::StringRef(Options).find("-cl-std") == llvm::StringRef::npos)
    AllOptions =
        AllOptions.empty() ? "-cl-std=CL1.2" : "-cl-std=CL1.2 " + AllOptions;
  Err =
      clBuildProgram(Prog, 1, &P->Device, AllOptions.c_str(), nullptr, nullptr);
  if (Err != CL_SUCCESS) {
    std::string Log;
    std::size_t LogSize = 0;
    if (clGetProgramBuildInfo(Prog, P->Device, CL_PROGRAM_BUILD_LOG, 0, nullptr,
                              &LogSize) == CL_SUCCESS &&
        LogSize > 0) {
      Log.resize(LogSize);
      if (clGetProgramBuildInfo(Prog, P->Device, CL_PROGRAM_BUILD_LOG, LogSize,
                                Log.data(), nullptr) != CL_SUCCESS)
        Log.clear();
      Log.resize(std::strlen(Log.c_str()));
    }
    clReleaseProgram(Prog);
    llvm::StringRef Trimmed = llvm::StringRef(Log).rtrim();
    return makeError("clBuildProgram failed: " + llvm::Twine(clErrorName(Err)) +
                     " (" + llvm::Twine(Err) + ") with options '" + AllOptions +
                     "'; build log:\n" +
                     (Trimmed.empty() ? "(empty)" : Trimmed));
  }
  P->Programs.push_back(Prog);
  return static_cast<unsigned>(P->Programs.size() - 1);
}

llvm::Expected<unsigned>
OpenCLSession::createBuffer(const std::vector<std::uint8_t> &Init) {
  cl_int Err = CL_SUCCESS;
  cl_mem Buf = nullptr;
  if (Init.empty()) {
    // OpenCL rejects size 0 (CL_INVALID_BUFFER_SIZE); a kernel may still be
    // handed the pointer, so give it a few zeroed bytes.
    std::uint8_t Zero[MinBufferBytes] = {};
    Buf = clCreateBuffer(P->Context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                         MinBufferBytes, Zero, &Err);
  } else {
    // CL_MEM_COPY_HOST_PTR only reads the pointer; the cast drops a const
    // that the 1.2 API lacks.
    Buf = clCreateBuffer(P->Context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                         Init.size(), const_cast<std::uint8_t *>(Init.data()),
                         &Err);
  }
  if (Err != CL_SUCCESS)
    return clError("clCreateBuffer", Err,
                   (llvm::Twine(Init.size()) + " bytes").str());
  P->Buffers.push_back(Buf);
  P->BufferSizes.push_back(Init.size());
  return static_cast<unsigned>(P->Buffers.size() - 1);
}

void OpenCLSession::release(unsigned Object) {
  if (Object < P->Buffers.size() && P->Buffers[Object]) {
    clReleaseMemObject(P->Buffers[Object]);
    P->Buffers[Object] = nullptr;
  }
}

void OpenCLSession::releaseProgram(unsigned Program) {
  if (Program >= P->Programs.size() || !P->Programs[Program])
    return;
  for (auto It = P->Kernels.begin(); It != P->Kernels.end();)
    if (It->first.first == Program) {
      clReleaseKernel(It->second);
      It = P->Kernels.erase(It);
    } else {
      ++It;
    }
  clReleaseProgram(P->Programs[Program]);
  P->Programs[Program] = nullptr;
}

std::size_t OpenCLSession::imageMaxBufferSize() const {
  return P->ImageMaxBuffer;
}

llvm::Expected<unsigned>
OpenCLSession::createImage1DBuffer(unsigned Buffer, ImageChannel Channel,
                                   std::size_t Width, unsigned Channels) {
  if (Buffer >= P->Buffers.size())
    return makeError("createImage1DBuffer: no buffer " + llvm::Twine(Buffer));
  if (!P->Images)
    return makeError("createImage1DBuffer: " + P->DeviceName +
                     " has no image support");
  if (Width == 0 || Width > P->ImageMaxBuffer)
    return makeError("createImage1DBuffer: " + llvm::Twine(Width) +
                     " elements; " + P->DeviceName + " allows 1 to " +
                     llvm::Twine(P->ImageMaxBuffer) +
                     " (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE)");
  cl_image_format Format;
  if (Channels != 1 && Channels != 4)
    return makeError("createImage1DBuffer: " + llvm::Twine(Channels) +
                     " channels (1 or 4)");
  Format.image_channel_order = Channels == 4 ? CL_RGBA : CL_R;
  Format.image_channel_data_type = Channel == ImageChannel::Float ? CL_FLOAT
                                   : Channel == ImageChannel::Int
                                       ? CL_SIGNED_INT32
                                       : CL_UNSIGNED_INT32;
  cl_image_desc Desc;
  std::memset(&Desc, 0, sizeof(Desc));
  Desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
  Desc.image_width = Width;
  Desc.buffer = P->Buffers[Buffer];
  cl_int Err = CL_SUCCESS;
  cl_mem Image = clCreateImage(P->Context, CL_MEM_READ_ONLY, &Format, &Desc,
                               nullptr, &Err);
  if (Err != CL_SUCCESS)
    return clError("clCreateImage", Err,
                   (llvm::Twine(Width) + " elements").str());
  P->Buffers.push_back(Image);
  P->BufferSizes.push_back(0); // read the buffer it views instead
  return static_cast<unsigned>(P->Buffers.size() - 1);
}

llvm::Expected<std::vector<std::uint8_t>>
OpenCLSession::readBuffer(unsigned Buffer) {
  if (Buffer >= P->Buffers.size())
    return makeError("readBuffer: no buffer " + llvm::Twine(Buffer) +
                     " (there are " + llvm::Twine(P->Buffers.size()) + ")");
  std::vector<std::uint8_t> Data(P->BufferSizes[Buffer]);
  if (Data.empty())
    return Data;
  cl_int Err =
      clEnqueueReadBuffer(P->Queue, P->Buffers[Buffer], CL_TRUE, 0, Data.size(),
                          Data.data(), 0, nullptr, nullptr);
  if (Err != CL_SUCCESS)
    return clError("clEnqueueReadBuffer", Err);
  return Data;
}

llvm::Expected<cl_kernel> OpenCLSession::Impl::kernel(unsigned Program,
                                                      const std::string &Name) {
  auto Key = std::make_pair(Program, Name);
  auto It = Kernels.find(Key);
  if (It != Kernels.end())
    return It->second;
  if (Program >= Programs.size())
    return makeError("launch(" + Name + "): no program " +
                     llvm::Twine(Program) + " (there are " +
                     llvm::Twine(Programs.size()) + ")");
  cl_int Err = CL_SUCCESS;
  cl_kernel K = clCreateKernel(Programs[Program], Name.c_str(), &Err);
  if (Err != CL_SUCCESS)
    return clError("clCreateKernel", Err, Name);
  Kernels.emplace(Key, K);
  return K;
}

llvm::Error OpenCLSession::launch(unsigned Program,
                                  const std::string &KernelName,
                                  const std::vector<KernelArg> &Args,
                                  const NDRange &Range) {
  return P->enqueue(Program, KernelName, Args, Range, nullptr);
}

llvm::Expected<double>
OpenCLSession::launchTimed(unsigned Program, const std::string &KernelName,
                           const std::vector<KernelArg> &Args,
                           const NDRange &Range) {
  cl_event Event = nullptr;
  if (auto E = P->enqueue(Program, KernelName, Args, Range, &Event))
    return E;
  cl_ulong Start = 0, End = 0;
  cl_int Err = clGetEventProfilingInfo(Event, CL_PROFILING_COMMAND_START,
                                       sizeof(Start), &Start, nullptr);
  if (Err == CL_SUCCESS)
    Err = clGetEventProfilingInfo(Event, CL_PROFILING_COMMAND_END, sizeof(End),
                                  &End, nullptr);
  clReleaseEvent(Event);
  if (Err != CL_SUCCESS)
    return clError("clGetEventProfilingInfo", Err, KernelName);
  return double(End - Start) * 1e-6;
}

llvm::Error OpenCLSession::Impl::enqueue(unsigned Program,
                                         const std::string &KernelName,
                                         const std::vector<KernelArg> &Args,
                                         const NDRange &Range,
                                         cl_event *Event) {
  // Check the range before touching OpenCL: its own answers
  // (CL_INVALID_WORK_GROUP_SIZE) do not say which dimension is wrong.
  if (Range.Dims < 1 || Range.Dims > 3)
    return makeError("launch(" + KernelName + "): NDRange has " +
                     llvm::Twine(Range.Dims) +
                     " dimensions; OpenCL allows 1 to 3");
  bool HasLocal = false, AllLocal = true;
  for (unsigned D = 0; D < Range.Dims; ++D) {
    if (Range.Global[D] == 0)
      return makeError("launch(" + KernelName +
                       "): global size is 0 in dimension " + llvm::Twine(D));
    HasLocal |= Range.Local[D] != 0;
    AllLocal &= Range.Local[D] != 0;
  }
  if (HasLocal) {
    if (!AllLocal)
      return makeError("launch(" + KernelName +
                       "): local size is 0 in some but not all of the " +
                       llvm::Twine(Range.Dims) +
                       " dimensions; give all or none");
    for (unsigned D = 0; D < Range.Dims; ++D)
      if (Range.Global[D] % Range.Local[D] != 0)
        return makeError(
            "launch(" + KernelName + "): global size " +
            llvm::Twine(Range.Global[D]) + " in dimension " + llvm::Twine(D) +
            " is not a multiple of local size " + llvm::Twine(Range.Local[D]) +
            " (OpenCL 1.2 needs whole work-groups; round the global size up "
            "and guard the kernel)");
  }

  llvm::Expected<cl_kernel> KOrErr = kernel(Program, KernelName);
  if (!KOrErr)
    return KOrErr.takeError();
  cl_kernel K = *KOrErr;

  cl_uint NumArgs = 0;
  cl_int Err = clGetKernelInfo(K, CL_KERNEL_NUM_ARGS, sizeof(NumArgs), &NumArgs,
                               nullptr);
  if (Err != CL_SUCCESS)
    return clError("clGetKernelInfo", Err, KernelName);
  if (NumArgs != Args.size())
    return makeError("launch(" + KernelName + "): kernel '" + KernelName +
                     "' takes " + llvm::Twine(NumArgs) + " argument(s), " +
                     llvm::Twine(Args.size()) + " given");

  for (cl_uint I = 0; I < NumArgs; ++I) {
    const KernelArg &A = Args[I];
    switch (A.ArgKind) {
    case KernelArg::Kind::Buffer:
      if (A.BufferId >= Buffers.size())
        return makeError("launch(" + KernelName + "): argument " +
                         llvm::Twine(I) + " names buffer " +
                         llvm::Twine(A.BufferId) + ", but there are " +
                         llvm::Twine(Buffers.size()));
      Err = clSetKernelArg(K, I, sizeof(cl_mem), &Buffers[A.BufferId]);
      break;
    case KernelArg::Kind::Scalar:
      Err = clSetKernelArg(K, I, A.Bytes.size(), A.Bytes.data());
      break;
    case KernelArg::Kind::LocalMemory:
      if (A.LocalBytes == 0)
        return makeError("launch(" + KernelName + "): argument " +
                         llvm::Twine(I) +
                         " asks for 0 bytes of __local memory");
      Err = clSetKernelArg(K, I, A.LocalBytes, nullptr);
      break;
    }
    if (Err != CL_SUCCESS)
      return makeError("clSetKernelArg(" + KernelName + ", argument " +
                       llvm::Twine(I) + ") failed: " + clErrorName(Err) + " (" +
                       llvm::Twine(Err) + ")");
  }

  if (HasLocal) {
    std::size_t MaxGroup = 0;
    if (clGetKernelWorkGroupInfo(K, Device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof(MaxGroup), &MaxGroup,
                                 nullptr) == CL_SUCCESS &&
        MaxGroup != 0) {
      std::size_t Group = 1;
      for (unsigned D = 0; D < Range.Dims; ++D)
        Group *= Range.Local[D];
      if (Group > MaxGroup)
        return makeError("launch(" + KernelName + "): work-group of " +
                         llvm::Twine(Group) +
                         " work-items exceeds this kernel's limit of " +
                         llvm::Twine(MaxGroup) + " on " + DeviceName);
    }
  }

  Err = clEnqueueNDRangeKernel(
      Queue, K, Range.Dims, nullptr, Range.Global.data(),
      HasLocal ? Range.Local.data() : nullptr, 0, nullptr, Event);
  if (Err != CL_SUCCESS)
    return clError("clEnqueueNDRangeKernel", Err, KernelName);
  Err = clFinish(Queue);
  if (Err != CL_SUCCESS) {
    if (Event && *Event)
      clReleaseEvent(*Event);
    return clError("clFinish", Err, KernelName);
  }
  return llvm::Error::success();
}

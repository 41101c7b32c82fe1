//===- Nvrtc.cpp - CUDA source to device code, at run time ----------------===//
#include "Runtime/Nvrtc.h"
#include "Runtime/CudaApi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace gpumerge {

using namespace nvrtc;

struct Nvrtc::Api {
  nvrtcResult (*Version)(int *, int *) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *,
                               const char *const *) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram *) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int,
                                const char *const *) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, std::size_t *) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, std::size_t *) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, std::size_t *) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char *) = nullptr;
  const char *(*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*GetNumSupportedArchs)(int *) = nullptr;
  nvrtcResult (*GetSupportedArchs)(int *) = nullptr;
  nvrtcResult (*AddNameExpression)(nvrtcProgram, const char *) = nullptr;
  nvrtcResult (*GetLoweredName)(nvrtcProgram, const char *,
                                const char **) = nullptr;
};

namespace {

llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message.str());
}

/// The libraries to try, in order.
std::vector<std::string> candidateLibraries() {
  std::vector<std::string> Names;
  if (const char *Env = std::getenv("GPUMERGE_LIBNVRTC"); Env && *Env)
    return {Env};
  // The newest first: a GPU newer than an old NVRTC needs the newer one.
  const char *Sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12",
                           "libnvrtc.so.11.2", "libnvrtc.so"};
  for (const char *S : Sonames)
    Names.push_back(S);
  std::string Include = Nvrtc::cudaIncludeDir();
  if (!Include.empty()) {
    llvm::SmallString<256> Root(Include);
    llvm::sys::path::remove_filename(Root); // include
    for (const char *Dir : {"lib64", "lib", "targets/x86_64-linux/lib"})
      for (const char *S : Sonames) {
        llvm::SmallString<256> P(Root);
        llvm::sys::path::append(P, Dir, S);
        if (llvm::sys::fs::exists(P))
          Names.push_back(std::string(P));
      }
  }
  return Names;
}

/// Stub text for host header \p Name, which NVRTC does not have.
std::string stubHeader(llvm::StringRef Name) {
  std::string Text = "// gpumerge: host header <" + Name.str() +
                     "> stubbed for NVRTC (device code only)\n"
                     "#pragma once\n";
  // <stdint.h>'s types in every stub: glibc's and libstdc++'s headers
  // bring them along (code that includes <cstdlib> or <chrono> alone uses
  // uint64_t), and a typedef may be repeated. <stdlib.h> brings
  // <sys/types.h>'s uint and its kin too.
  Text += "typedef signed char int8_t;\ntypedef short int16_t;\n"
          "typedef int int32_t;\ntypedef long long int64_t;\n"
          "typedef unsigned char uint8_t;\ntypedef unsigned short "
          "uint16_t;\ntypedef unsigned int uint32_t;\ntypedef unsigned "
          "long long uint64_t;\ntypedef long long intptr_t;\n"
          "typedef unsigned long long uintptr_t;\n";
  if (Name == "stdlib.h" || Name == "cstdlib" || Name == "sys/types.h")
    Text += "typedef unsigned int uint;\ntypedef unsigned short ushort;\n"
            "typedef unsigned long ulong;\n";
  if (Name == "limits.h" || Name == "climits")
    Text += "#define CHAR_BIT 8\n#define SCHAR_MIN (-128)\n"
            "#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n"
            "#define SHRT_MIN (-32768)\n#define SHRT_MAX 32767\n"
            "#define USHRT_MAX 65535\n#define INT_MIN (-2147483647 - 1)\n"
            "#define INT_MAX 2147483647\n#define UINT_MAX 4294967295U\n"
            "#define LONG_MIN (-9223372036854775807L - 1)\n"
            "#define LONG_MAX 9223372036854775807L\n"
            "#define ULONG_MAX 18446744073709551615UL\n"
            "#define LLONG_MIN (-9223372036854775807LL - 1)\n"
            "#define LLONG_MAX 9223372036854775807LL\n"
            "#define ULLONG_MAX 18446744073709551615ULL\n";
  if (Name == "float.h" || Name == "cfloat")
    Text += "#define FLT_MAX 3.402823466e+38F\n"
            "#define FLT_MIN 1.175494351e-38F\n"
            "#define FLT_EPSILON 1.192092896e-07F\n"
            "#define DBL_MAX 1.7976931348623158e+308\n"
            "#define DBL_MIN 2.2250738585072014e-308\n"
            "#define DBL_EPSILON 2.2204460492503131e-016\n";
  if (Name == "math.h" || Name == "cmath")
    Text += "#define M_E 2.7182818284590452354\n"
            "#define M_LOG2E 1.4426950408889634074\n"
            "#define M_LOG10E 0.43429448190325182765\n"
            "#define M_LN2 0.69314718055994530942\n"
            "#define M_LN10 2.30258509299404568402\n"
            "#define M_PI 3.14159265358979323846\n"
            "#define M_PI_2 1.57079632679489661923\n"
            "#define M_PI_4 0.78539816339744830962\n"
            "#define M_1_PI 0.31830988618379067154\n"
            "#define M_2_PI 0.63661977236758134308\n"
            "#define M_2_SQRTPI 1.12837916709551257390\n"
            "#define M_SQRT2 1.41421356237309504880\n"
            "#define M_SQRT1_2 0.70710678118654752440\n"
            "#define INFINITY __int_as_float(0x7f800000)\n"
            "#define NAN __int_as_float(0x7fffffff)\n"
            "#define HUGE_VALF __int_as_float(0x7f800000)\n"
            "#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)\n";
  if (Name == "assert.h" || Name == "cassert")
    Text += "#ifndef assert\n" // NVRTC 13 defines it
            "extern \"C\" __device__ void __assertfail(const char *, const "
            "char *, unsigned, const char *, unsigned long);\n"
            "#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, "
            "__LINE__, __func__, 1))\n"
            "#endif\n";
  return Text;
}

/// What NVRTC says of a `register` local, and the option that removes it.
const char RegisterRefused[] =
    "use of the \"register\" storage class specifier is not allowed";
const char DefineRegisterAway[] = "-Dregister=";

/// The header NVRTC's log says it could not open, or "".
std::string missingHeader(llvm::StringRef Log) {
  static const char Marker[] = "cannot open source file \"";
  size_t At = Log.find(Marker);
  if (At == llvm::StringRef::npos)
    return "";
  llvm::StringRef Rest = Log.drop_front(At + sizeof(Marker) - 1);
  return Rest.take_until([](char C) { return C == '"'; }).str();
}

} // namespace

std::string Nvrtc::cudaIncludeDir() {
  auto Has = [](const std::string &Root) {
    return !Root.empty() &&
           llvm::sys::fs::exists(Root + "/include/cuda_runtime.h");
  };
  for (const char *Env : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *V = std::getenv(Env); V && Has(V))
      return std::string(V) + "/include";
  if (auto Nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> P;
    if (!llvm::sys::fs::real_path(*Nvcc, P)) {
      llvm::sys::path::remove_filename(P); // nvcc
      llvm::sys::path::remove_filename(P); // bin
      if (Has(std::string(P)))
        return std::string(P) + "/include";
    }
  }
  if (Has("/usr/local/cuda"))
    return "/usr/local/cuda/include";
  return "";
}

llvm::Expected<Nvrtc &> Nvrtc::get() {
  static Nvrtc Instance;
  static std::string LoadError;
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::vector<std::string> Tried;
    void *Handle = nullptr;
    for (const std::string &Name : candidateLibraries()) {
      Handle = dlopen(Name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (Handle) {
        Instance.Path = Name;
        break;
      }
      Tried.push_back(Name);
    }
    if (!Handle) {
      LoadError = "cannot load NVRTC (the CUDA runtime compiler): tried " +
                  llvm::join(Tried, ", ") +
                  "; install the CUDA toolkit or set GPUMERGE_LIBNVRTC";
      return;
    }
    auto *A = new Api();
    std::vector<std::string> Missing;
    auto Resolve = [&](auto &Fn, const char *Name) {
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(
          dlsym(Handle, Name));
      if (!Fn)
        Missing.push_back(Name);
    };
    Resolve(A->Version, "nvrtcVersion");
    Resolve(A->CreateProgram, "nvrtcCreateProgram");
    Resolve(A->DestroyProgram, "nvrtcDestroyProgram");
    Resolve(A->CompileProgram, "nvrtcCompileProgram");
    Resolve(A->GetProgramLogSize, "nvrtcGetProgramLogSize");
    Resolve(A->GetProgramLog, "nvrtcGetProgramLog");
    Resolve(A->GetCUBINSize, "nvrtcGetCUBINSize");
    Resolve(A->GetCUBIN, "nvrtcGetCUBIN");
    Resolve(A->GetPTXSize, "nvrtcGetPTXSize");
    Resolve(A->GetPTX, "nvrtcGetPTX");
    Resolve(A->GetErrorString, "nvrtcGetErrorString");
    Resolve(A->GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
    Resolve(A->GetSupportedArchs, "nvrtcGetSupportedArchs");
    Resolve(A->AddNameExpression, "nvrtcAddNameExpression");
    Resolve(A->GetLoweredName, "nvrtcGetLoweredName");
    if (!Missing.empty()) {
      LoadError = Instance.Path + " lacks " + llvm::join(Missing, ", ") +
                  ": NVRTC too old (gpumerge needs CUDA 11.2 or later)";
      delete A;
      return;
    }
    Instance.A = A;
  });
  if (!Instance.A)
    return makeError(LoadError);
  return Instance;
}

std::string Nvrtc::version() const {
  int Major = 0, Minor = 0;
  A->Version(&Major, &Minor);
  return std::to_string(Major) + "." + std::to_string(Minor);
}

llvm::Expected<NvrtcOutput>
Nvrtc::compile(const std::string &Source, const std::string &Name, int Major,
               int Minor, const std::vector<std::string> &Options,
               const std::vector<std::string> &Kernels) {
  NvrtcOutput Out;
  // A real architecture this NVRTC knows gives a CUBIN; a newer GPU gets
  // PTX for the newest virtual one it knows, which the driver compiles.
  int Wanted = Major * 10 + Minor, Best = 0;
  int Count = 0;
  if (A->GetNumSupportedArchs(&Count) == NVRTC_SUCCESS && Count > 0) {
    std::vector<int> Archs(Count);
    if (A->GetSupportedArchs(Archs.data()) == NVRTC_SUCCESS)
      for (int Arch : Archs)
        if (Arch <= Wanted)
          Best = std::max(Best, Arch);
  }
  if (Best == 0)
    return makeError("NVRTC " + version() + " cannot compile for sm_" +
                     llvm::Twine(Wanted) + " or any older architecture");
  Out.IsPtx = Best != Wanted;
  Out.Arch =
      (Out.IsPtx ? "-arch=compute_" : "-arch=sm_") + std::to_string(Best);

  std::vector<std::string> All = {Out.Arch, "-default-device"};
  if (std::string Include = cudaIncludeDir(); !Include.empty())
    All.push_back("-I" + Include);
  All.insert(All.end(), Options.begin(), Options.end());

  std::vector<std::string> StubTexts;
  // Each round may find one more host header missing; a file includes few.
  for (unsigned Round = 0; Round < 32; ++Round) {
    std::vector<const char *> Argv;
    for (const std::string &O : All)
      Argv.push_back(O.c_str());
    std::vector<const char *> Headers, Names;
    for (size_t I = 0; I < Out.StubbedHeaders.size(); ++I) {
      Headers.push_back(StubTexts[I].c_str());
      Names.push_back(Out.StubbedHeaders[I].c_str());
    }
    nvrtcProgram Prog = nullptr;
    nvrtcResult R =
        A->CreateProgram(&Prog, Source.c_str(), Name.c_str(),
                         int(Headers.size()), Headers.data(), Names.data());
    if (R != NVRTC_SUCCESS)
      return makeError(llvm::Twine("nvrtcCreateProgram failed: ") +
                       A->GetErrorString(R));
    std::vector<std::string> Expressions;
    // NVRTC keeps the pointers until the program is destroyed.
    Expressions.reserve(Kernels.size());
    for (const std::string &K : Kernels) {
      Expressions.push_back("&" + K);
      if (A->AddNameExpression(Prog, Expressions.back().c_str()) !=
          NVRTC_SUCCESS) {
        A->DestroyProgram(&Prog);
        return makeError("NVRTC: cannot look up kernel '" + K + "'");
      }
    }
    R = A->CompileProgram(Prog, int(Argv.size()), Argv.data());
    std::size_t LogSize = 0;
    Out.Log.clear();
    if (A->GetProgramLogSize(Prog, &LogSize) == NVRTC_SUCCESS && LogSize > 1) {
      Out.Log.resize(LogSize);
      if (A->GetProgramLog(Prog, Out.Log.data()) != NVRTC_SUCCESS)
        Out.Log.clear();
      Out.Log.resize(std::strlen(Out.Log.c_str()));
    }
    if (R == NVRTC_SUCCESS) {
      std::size_t Size = 0;
      auto GetSize = Out.IsPtx ? A->GetPTXSize : A->GetCUBINSize;
      auto Get = Out.IsPtx ? A->GetPTX : A->GetCUBIN;
      R = GetSize(Prog, &Size);
      if (R == NVRTC_SUCCESS) {
        Out.Binary.resize(Size);
        R = Get(Prog, Out.Binary.data());
      }
      for (size_t I = 0; I < Kernels.size() && R == NVRTC_SUCCESS; ++I) {
        const char *Lowered = nullptr;
        R = A->GetLoweredName(Prog, Expressions[I].c_str(), &Lowered);
        if (R == NVRTC_SUCCESS && Lowered)
          Out.LoweredNames[Kernels[I]] = Lowered;
      }
      A->DestroyProgram(&Prog);
      if (R != NVRTC_SUCCESS)
        return makeError(llvm::Twine("NVRTC could not return the ") +
                         (Out.IsPtx ? "PTX" : "CUBIN") + ": " +
                         A->GetErrorString(R));
      return Out;
    }
    A->DestroyProgram(&Prog);
    std::string Missing = missingHeader(Out.Log);
    if (R == NVRTC_ERROR_COMPILATION && !Missing.empty() &&
        !llvm::is_contained(Out.StubbedHeaders, Missing) &&
        // A header of the user's ("foo.h" not found) is a real error; host
        // headers are named without a directory or in sys/.
        (Missing.find('/') == std::string::npos ||
         llvm::StringRef(Missing).startswith("sys/"))) {
      Out.StubbedHeaders.push_back(Missing);
      StubTexts.push_back(stubHeader(Missing));
      continue;
    }
    // nvcc takes `register` (GNU C++), which C++17 removed and NVRTC
    // refuses: it means nothing, so it is defined away.
    if (R == NVRTC_ERROR_COMPILATION &&
        Out.Log.find(RegisterRefused) != std::string::npos &&
        !llvm::is_contained(All, DefineRegisterAway)) {
      All.push_back(DefineRegisterAway);
      continue;
    }
    std::string Options;
    for (const std::string &O : All)
      Options += (Options.empty() ? "" : " ") + O;
    return makeError("NVRTC " + version() + " could not compile " + Name +
                     " (" + Options + "):\n" +
                     llvm::StringRef(Out.Log).rtrim());
  }
  return makeError("NVRTC: " + Name + " includes too many host headers");
}

std::vector<std::string> splitBuildOptions(const std::string &Options) {
  llvm::SmallVector<llvm::StringRef, 16> Items;
  llvm::StringRef(Options).split(Items, ' ', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Out;
  for (size_t I = 0; I < Items.size(); ++I) {
    llvm::StringRef Item = Items[I];
    // "-D NAME" and "-I DIR": the value is the next item.
    if ((Item == "-D" || Item == "-I" || Item == "-U") && I + 1 < Items.size())
      Out.push_back(Item.str() + Items[++I].str());
    else
      Out.push_back(Item.str());
  }
  return Out;
}

} // namespace gpumerge

//===- VerifyCuda.cpp - What --verify builds on a CUDA device -------------===//
#include "Runtime/VerifyCuda.h"

#include "CodeGen/Emitter.h"
#include "Frontend/Frontend.h"

namespace gpumerge {

llvm::Expected<CudaVerifyPrograms>
cudaVerifyPrograms(const Module &M,
                   const std::map<std::string, const Function *> &Replacements,
                   const std::vector<std::string> &ParseArgs) {
  if (M.Lang != Language::Cuda)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a CUDA device runs CUDA files; this input is OpenCL (use "
        "--device=opencl)");
  FrontendOptions Parse;
  Parse.ExtraArgs = ParseArgs;
  CudaVerifyPrograms P;
  if (M.Phased.empty()) {
    P.Reference = M.DeviceCode;
    P.ReferenceNote = "the CUDA input as written (host code left out)";
  } else {
    auto Emitted = emitModule(M, Language::Cuda);
    if (!Emitted)
      return Emitted.takeError();
    auto Phases = deviceCodeOf(Emitted->Text, M.FileName, Parse);
    if (!Phases)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the input with its split kernels' phases does not parse (a "
          "gpumerge bug): " +
              llvm::toString(Phases.takeError()));
    P.Reference = std::move(*Phases);
    P.ReferenceNote =
        "the CUDA input with its split kernels' phases printed from KIR";
  }
  auto Emitted = emitModule(M, Language::Cuda, Replacements);
  if (!Emitted)
    return Emitted.takeError();
  auto Candidate = deviceCodeOf(Emitted->Text, M.FileName, Parse);
  if (!Candidate)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the emitted file does not parse (a gpumerge bug): " +
            llvm::toString(Candidate.takeError()));
  P.Candidate = std::move(*Candidate);
  return P;
}

std::string cudaKernelName(const Function &Naive, llvm::StringRef Kernel) {
  if (Kernel.empty())
    Kernel = Naive.TemplateCall.empty() ? Naive.Name : Naive.TemplateCall;
  return Naive.Scope + Kernel.str();
}

} // namespace gpumerge

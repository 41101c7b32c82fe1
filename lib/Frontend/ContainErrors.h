//===- ContainErrors.h - Errors that cost only what they are in -*- C++ -*-===//
//
// Clang 16 and nvcc disagree on some valid CUDA: a launch from device code
// (dynamic parallelism), a __shared__ cuda::barrier, an attribute list
// where CUDA 12 headers put one, PTX's %laneid in inline asm. And a host
// function may call an API the installed toolkit removed. Where nvcc
// compiles the file, such an error costs only the function or variable it
// is in, and what uses it: a kernel or helper is passed through as
// written, with Clang's message; a host function or device variable is
// kept as written, with a warning. Any other error stops the file.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_CONTAINERRORS_H
#define GPUMERGE_FRONTEND_CONTAINERRORS_H

#include "Frontend/FrontendOptions.h"
#include "Frontend/ParsedSource.h"
#include "IR/Kernel.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpumerge {

/// A kernel or helper Clang rejects where nvcc does not, and why.
struct DeviceError {
  unsigned Line;
  std::string Reason;
};

/// One function for all its instantiations and declarations: the errors
/// Clang reports in a template's body are the template's.
const clang::FunctionDecl *deviceKey(const clang::FunctionDecl &FD);

/// The device functions and file-scope device variables Clang rejects
/// where nvcc does not: functions by deviceKey, variables by their
/// canonical declaration.
using BrokenDeviceMap = std::map<const clang::Decl *, DeviceError>;

/// The errors of a parse that cost only the functions and variables they
/// are in (parseSource says which).
struct ContainedErrors {
  /// Host functions with errors, each with its first error.
  std::vector<std::pair<const clang::FunctionDecl *, std::string>> Host;
  /// Device functions and variables Clang rejects where nvcc does not.
  BrokenDeviceMap Device;
  /// Kernels launched from device code, by deviceKey, and the line of the
  /// first such launch.
  std::map<const clang::FunctionDecl *, unsigned> LaunchedFromDevice;
  /// The device variables in Device, in the order their errors came.
  std::vector<const clang::VarDecl *> Variables;
};

/// The errors of \p P, where each costs only what it is in (parseSource
/// says when), with a warning in \p M for each variable and host function
/// kept as written; an error where they stop the file.
llvm::Expected<ContainedErrors>
containErrors(const ParsedSource &P, const FunctionCollector &Collector,
              const FrontendOptions &Opts, Module &M);

/// Why \p FD is passed through as Clang rejects it, or what it calls, where
/// nvcc does not; nullopt where it is not.
std::optional<DeviceError> brokenDeviceReason(const clang::FunctionDecl &FD,
                                              const ContainedErrors &Errors,
                                              const clang::SourceManager &SM);

} // namespace gpumerge

#endif

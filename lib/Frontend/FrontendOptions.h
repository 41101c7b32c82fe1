//===- FrontendOptions.h - How the frontend parses a file -------*- C++ -*-===//
#ifndef GPUMERGE_FRONTEND_FRONTENDOPTIONS_H
#define GPUMERGE_FRONTEND_FRONTENDOPTIONS_H

#include "IR/Kernel.h"

#include <optional>
#include <string>
#include <vector>

namespace gpumerge {

struct FrontendOptions {
  std::optional<Language> Lang;       ///< default: from the file extension
  std::vector<std::string> ExtraArgs; ///< after `--` on the command line
  /// For the tests of gpumerge's own failures (--debug-fail=lower-crash=F):
  /// lowering the function of this name crashes.
  std::string CrashLowering;
};

} // namespace gpumerge

#endif

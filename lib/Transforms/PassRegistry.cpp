//===- PassRegistry.cpp - Passes by name, pipelines as lists --------------===//
#include "Transforms/PassRegistry.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace gpumerge {

const char *memoryVariantName(MemoryVariant V) {
  return V == MemoryVariant::Global ? "global" : "texture";
}

const std::map<std::string, PassInfo> &passRegistry() {
  // The optimization passes of §3.1-3.7 register here as they land; until
  // then the pipelines are empty and kernels are reported passed-through.
  static const std::map<std::string, PassInfo> Registry;
  return Registry;
}

std::vector<std::string> defaultPipeline(MemoryVariant V) {
  std::vector<std::string> Wanted =
      V == MemoryVariant::Global
          ? std::vector<std::string>{"vectorize",   "coalesce",
                                     "block-merge", "thread-merge",
                                     "prefetch",    "partition-camping"}
          : std::vector<std::string>{"vectorize", "thread-merge",
                                     "texture-block-shape", "texture-memory",
                                     "partition-camping"};
  std::vector<std::string> Available;
  for (const std::string &N : Wanted)
    if (passRegistry().count(N))
      Available.push_back(N);
  return Available;
}

llvm::Expected<std::vector<std::string>> parsePipeline(llvm::StringRef Spec) {
  std::vector<std::string> Names;
  if (Spec.trim() == "none")
    return Names;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Spec.split(Parts, ',', -1, false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    if (!passRegistry().count(P.str())) {
      std::vector<std::string> Known;
      for (const auto &[N, _] : passRegistry())
        Known.push_back(N);
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(), "unknown pass '%s'; known passes: %s",
          P.str().c_str(),
          Known.empty() ? "none yet (use --passes=none)"
                        : llvm::join(Known, ", ").c_str());
    }
    Names.push_back(P.str());
  }
  return Names;
}

} // namespace gpumerge

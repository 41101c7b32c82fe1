//===- PassRegistry.cpp - Passes by name, pipelines as lists --------------===//
#include "Transforms/PassRegistry.h"
#include "Analysis/Domain.h"
#include "Transforms/Passes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace gpumerge {

const char *memoryVariantName(MemoryVariant V) {
  return V == MemoryVariant::Global ? "global" : "texture";
}

bool textureFollowsGlobal(const MachineDescription &MD) {
  // Measured on an H100 (2026-11-27): the paper's texture variant ran at
  // 0.47-0.85x the global one; the same cache is reached by __ldg.
  return defaultTextureForm(MD) == TextureForm::Ldg;
}

const std::map<std::string, PassInfo> &passRegistry() {
  // The optimization passes of §3.1-3.7 and ours register here, one factory
  // call per line (Passes.h); a pipeline names only registered passes.
  static const std::map<std::string, PassInfo> Registry = [] {
    std::map<std::string, PassInfo> R;
    for (PassInfo P : {
             scalarReplacePass(),
             splitReductionPass(),
             coalescePass(),
             haloTilePass(),
             blockMergePass(),
             threadMergePass(),
             asyncPrefetchPass(),
             partitionCampingPass(),
             prefetchPass(),
             vectorizePass(),
             textureBlockShapePass(),
             textureMemoryPass(),
         })
      R.emplace(P.Name, std::move(P));
    return R;
  }();
  return Registry;
}

LaunchPlan &sameLaunchPlan(Function &F) {
  if (!F.Plan) {
    F.Plan.emplace();
    F.Plan->SameLaunch = true;
    F.Plan->Dims = findDomain(F).Dims;
    F.Plan->Layered = findDomain(F).Layered;
  }
  return *F.Plan;
}

std::vector<std::string> defaultPipeline(MemoryVariant V,
                                         const MachineDescription &MD) {
  // Vectorization last in the global pipeline: the passes before it
  // regenerate the kernel from its origin, so it sees the final accesses.
  std::vector<std::string> Global = {"scalar-replace", "split-reduction",
                                     "coalesce",       "halo-tile",
                                     "block-merge",    "thread-merge",
                                     "async-prefetch", "partition-camping",
                                     "prefetch",       "vectorize"};
  std::vector<std::string> Wanted = Global;
  if (V == MemoryVariant::Texture && textureFollowsGlobal(MD)) {
    // The global variant whose read-only arrays are read through the
    // texture path: texture-memory only marks them, after everything else.
    Wanted.push_back("texture-memory");
  } else if (V == MemoryVariant::Texture) {
    Wanted = {"scalar-replace", "split-reduction",
              "thread-merge",   "texture-block-shape",
              "texture-memory", "partition-camping",
              "vectorize"};
  }
  std::vector<std::string> Available;
  for (const std::string &N : Wanted)
    if (passRegistry().count(N))
      Available.push_back(N);
  return Available;
}

llvm::Expected<MergeRequest> parseMergeRequest(llvm::StringRef Spec) {
  MergeRequest R;
  llvm::SmallVector<llvm::StringRef, 4> Items;
  Spec.split(Items, ',', -1, false);
  for (llvm::StringRef Item : Items) {
    auto [Key, Value] = Item.trim().split('=');
    std::int64_t N = 0;
    std::optional<std::int64_t> *Slot = Key == "block-x"    ? &R.BlockX
                                        : Key == "block-y"  ? &R.BlockY
                                        : Key == "thread-x" ? &R.ThreadX
                                        : Key == "thread-y" ? &R.ThreadY
                                                            : nullptr;
    if (!Slot || Value.getAsInteger(10, N) || N < 1 || N > 64)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "bad --merge item '%s': expected block-x=N, block-y=N, thread-x=N "
          "or thread-y=N with 1 <= N <= 64",
          Item.str().c_str());
    *Slot = N;
  }
  return R;
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

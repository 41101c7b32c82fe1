//===- PassRegistry.h - Passes by name, pipelines as lists ------*- C++ -*-===//
//
// Every transformation registers here under a kebab-case name (coalesce,
// block-merge, thread-merge, ...); a pipeline is a list of names, so
// --passes= and --emit-steps come for free. The global and texture
// pipelines of the paper's Fig. 1 are lists of these names.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_TRANSFORMS_PASSREGISTRY_H
#define GPUMERGE_TRANSFORMS_PASSREGISTRY_H

#include "IR/Kernel.h"
#include "Target/MachineDescription.h"
#include "Transforms/Search.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <optional>

namespace gpumerge {

enum class MemoryVariant { Global, Texture };
const char *memoryVariantName(MemoryVariant V);

/// Is \p MD's read-only (texture) path just another way into its L1 cache
/// (NVIDIA sm_35 and later)? There the texture variant is the global one
/// with its read-only arrays read through that path: the global pipeline,
/// then texture-memory. Before it (GT200, Fermi) and on AMD, the texture
/// variant is the paper's (§3.5): no shared-memory staging, blocks shaped
/// for the texture cache.
bool textureFollowsGlobal(const MachineDescription &MD);

/// What a pass did, for the report: its name and parameters.
struct AppliedPass {
  std::string Name;
  std::map<std::string, std::string> Parameters;
};

/// Factors forced by --merge=block-x=2,block-y=16,thread-x=4,thread-y=1
/// (relative to the block after coalescing; unset: the model chooses).
struct MergeRequest {
  std::optional<std::int64_t> BlockX, BlockY, ThreadX, ThreadY;
  bool any() const { return BlockX || BlockY || ThreadX || ThreadY; }
};

/// Parses "block-y=16,thread-x=4"; errors name the bad item.
llvm::Expected<MergeRequest> parseMergeRequest(llvm::StringRef Spec);

/// The versions block-merge (else thread-merge) ranked, best first, and the
/// block they merge from: the space --tune times the top of (as --merge
/// requests, relative to FromBlock).
struct SearchSpace {
  std::array<std::int64_t, 2> FromBlock = {0, 0};
  std::vector<RankedVersion> Versions;
};

struct PassContext {
  const MachineDescription &Target;
  MemoryVariant Variant;
  MergeRequest Merge = {};
  /// --texture=object|ldg|restrict for texture-memory; unset: restrict where
  /// the texture variant follows the global one, else the target's default.
  std::optional<TextureForm> Texture = {};
  /// Where given, the merge passes record the space they ranked.
  SearchSpace *Searched = nullptr;
  /// split-reduction may apply: false for the tiled versions --tune times
  /// against it (and forced merge factors ask for a tiled version too).
  bool SplitLoops = true;
  /// The language the kernel is written out in (async-prefetch is CUDA's).
  Language Output = Language::Cuda;
  /// The helpers the kernel calls, each before its callers
  /// (Module::helpersCalled): ptxas compiles the kernel with them.
  std::vector<const Function *> Helpers = {};
  /// The pipeline is the user's (--passes): a pass the model leaves out by
  /// default on the target (halo-tile where the L1 caches global loads)
  /// runs as asked.
  bool PipelineGiven = false;

  /// The pipeline names texture-block-shape, the paper's texture variant's
  /// own pass: it asks for that variant on any target.
  bool PaperTextureAsked = false;

  /// The paper's texture variant, whose passes shape blocks and merge
  /// threads for the texture cache instead of staging through shared
  /// memory; false for the global variant, and for the texture variant on
  /// targets where it follows the global one (textureFollowsGlobal) unless
  /// the pipeline asks for the paper's.
  bool paperTexture() const {
    return Variant == MemoryVariant::Texture &&
           (PaperTextureAsked || !textureFollowsGlobal(Target));
  }
};

/// A pass rewrites \p F in place. It returns the parameters it applied, or
/// nullopt when it did not apply (with \p Why saying why), or an error.
using PassFn = std::function<llvm::Expected<std::optional<AppliedPass>>(
    Function &F, const PassContext &Ctx, std::string &Why)>;

struct PassInfo {
  std::string Name;
  std::string Summary;
  PassFn Run;
  /// Every thread keeps its threadIdx, blockIdx and their OpenCL forms (the
  /// launch is unchanged): the pass may run on a kernel whose helpers read
  /// them (Function::PositionHelper).
  bool KeepsThreadBuiltins = false;
};

/// \p F's plan, made when it has none: launched as the naive kernel
/// (SameLaunch), for passes that only add conditions to the launch.
LaunchPlan &sameLaunchPlan(Function &F);

/// All registered passes, by name.
const std::map<std::string, PassInfo> &passRegistry();

/// The default pipeline of a variant on \p MD (Fig. 1), as names of
/// registered passes.
std::vector<std::string> defaultPipeline(MemoryVariant V,
                                         const MachineDescription &MD);

/// Parses "--passes=a,b" ("none" is the empty pipeline); errors name an
/// unknown pass and list the known ones.
llvm::Expected<std::vector<std::string>> parsePipeline(llvm::StringRef Spec);

} // namespace gpumerge

#endif

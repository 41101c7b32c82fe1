//===- PassesFuzzer.cpp - libFuzzer over the frontend and the passes ------===//
//
// Input bytes become a CUDA or OpenCL source (the first byte's low bit
// chooses), which goes through what gpumerge does short of --verify: parse,
// split at global barriers, both pipelines (global and texture) on every
// shipped target, then the output in both languages. Any crash, sanitizer
// report, error returned by a pass, or malformed KIR (after the frontend or
// after any pass) is a finding: the driver would skip such a pass as a
// gpumerge bug, the fuzzer stops on it so it can be fixed.
//
// ptxas is not run here (one nvcc process per input would make each run a
// second): the targets' SmArch is cleared, so the passes use the KIR
// register estimate they use on targets nvcc lacks; the texture form stays
// the target's default.
//
// Built with -DGPUMERGE_FUZZER=ON and clang++-16 (scripts/fuzz-libfuzzer).
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Emitter.h"
#include "Frontend/Frontend.h"
#include "IR/Verifier.h"
#include "Target/MachineDescription.h"
#include "Transforms/PassRegistry.h"
#include "Transforms/Passes.h"
#include "Transforms/SplitPhases.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gpumerge;

namespace {

struct FuzzTarget {
  MachineDescription MD;
  TextureForm Form;
};

std::vector<FuzzTarget> &targets() {
  static std::vector<FuzzTarget> Targets;
  return Targets;
}

[[noreturn]] void finding(const std::string &What) {
  llvm::errs() << "gpumerge fuzz finding: " << What << "\n";
  std::abort();
}

void checkWellFormed(const Function &F, const std::string &After) {
  if (auto E = verifyFunction(F))
    finding("malformed KIR after " + After + ": " +
            llvm::toString(std::move(E)));
}

/// The default pipeline of \p V on \p F, as the driver runs it (each pass
/// on the result of the one before; a pass that does not apply leaves the
/// kernel alone).
std::unique_ptr<Function> runPipeline(const Function &Naive,
                                      const FuzzTarget &T, MemoryVariant V) {
  PassContext Ctx{T.MD, V};
  Ctx.Texture = T.Form;
  std::unique_ptr<Function> K = Naive.clone();
  for (const std::string &Name : defaultPipeline(V)) {
    std::string Why;
    auto R = passRegistry().at(Name).Run(*K, Ctx, Why);
    if (!R)
      finding("pass '" + Name + "' on '" + Naive.Name + "' (" + T.MD.Name +
              ", " + memoryVariantName(V) +
              "): " + llvm::toString(R.takeError()));
    checkWellFormed(*K, "pass '" + Name + "' on '" + Naive.Name + "' (" +
                            T.MD.Name + ", " + memoryVariantName(V) + ")");
  }
  return K;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  for (const std::string &Name : listTargets(defaultTargetsDir())) {
    auto MD = loadTarget(Name, defaultTargetsDir());
    if (!MD) {
      llvm::errs() << "cannot load target " << Name << ": "
                   << llvm::toString(MD.takeError()) << "\n";
      std::abort();
    }
    FuzzTarget T{*MD, defaultTextureForm(*MD)};
    T.MD.SmArch.clear();
    targets().push_back(std::move(T));
  }
  if (targets().empty()) {
    llvm::errs() << "no targets in " << defaultTargetsDir() << "\n";
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  if (Size < 2 || Size > 16384)
    return 0;
  const Language L = (Data[0] & 1) ? Language::OpenCL : Language::Cuda;
  std::string Source(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  auto M =
      parseSource(Source, L == Language::OpenCL ? "fuzz.cl" : "fuzz.cu", {});
  if (!M) { // not valid CUDA/OpenCL: nothing to fuzz further
    llvm::consumeError(M.takeError());
    return 0;
  }
  splitGlobalBarriers(**M);
  for (const auto &F : (*M)->Functions)
    checkWellFormed(*F, "the frontend ('" + F->Name + "')");

  for (const FuzzTarget &T : targets())
    for (MemoryVariant V : {MemoryVariant::Global, MemoryVariant::Texture}) {
      std::vector<std::unique_ptr<Function>> Optimized;
      std::map<std::string, const Function *> Replacements;
      for (Function *K : (*M)->kernels()) {
        Optimized.push_back(runPipeline(*K, T, V));
        Replacements[K->Name] = Optimized.back().get();
      }
      // Both languages, as --lang would write them; the text itself is
      // checked by the campaign's nvcc and PoCL runs, not here.
      for (Language Out : {Language::Cuda, Language::OpenCL}) {
        auto E = emitModule(**M, Out, Replacements);
        if (!E)
          finding(llvm::toString(E.takeError()));
        else if (E->Text.empty() && !Source.empty())
          finding("empty output");
      }
    }
  return 0;
}

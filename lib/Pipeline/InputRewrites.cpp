//===- InputRewrites.cpp - What runs on the input before any pass ---------===//
#include "Pipeline/InputRewrites.h"
#include "Transforms/GridStride.h"
#include "Transforms/SplitPhases.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>

namespace gpumerge {

llvm::ArrayRef<std::string> inputRewriteNames() {
  static const std::string Names[] = {"global-barrier", "grid-stride"};
  return Names;
}

bool isInputRewrite(llvm::StringRef Name) {
  return llvm::is_contained(inputRewriteNames(), Name);
}

const Function &InputReading::startOf(const Function &F) const {
  auto It = Guarded.find(F.Name);
  return It == Guarded.end() ? F : *It->second;
}

InputReading rewriteInput(Module &M, llvm::ArrayRef<std::string> Disabled,
                          const std::string &File, llvm::StringRef DebugFail,
                          llvm::raw_ostream &Diagnostics) {
  InputReading R;
  if (!llvm::is_contained(Disabled, "global-barrier"))
    splitGlobalBarriers(M);
  else
    // No pass knows a grid-wide barrier: such a kernel is written as it came.
    llvm::erase_if(M.Functions, [&](const std::unique_ptr<Function> &F) {
      if (!F->IsKernel || !hasGlobalSync(*F))
        return false;
      M.PassedThrough.push_back({F->Name,
                                 "it has a global barrier, and "
                                 "--disable-passes=global-barrier leaves it "
                                 "unsplit",
                                 F->Span.Line, F->Span});
      return true;
    });
  if (llvm::is_contained(Disabled, "grid-stride"))
    return R;
  for (Function *F : M.kernels()) {
    std::string WhyNot;
    std::unique_ptr<Function> G;
    if (!llvm::CrashRecoveryContext().RunSafely([&] {
          if (DebugFail == "grid-stride-crash=" + F->Name)
            std::abort();
          G = guardGridStride(*F, WhyNot);
        })) {
      G.reset();
      WhyNot = "gpumerge crashed reading its grid-stride loop (a gpumerge "
               "bug)";
      R.Crashed.insert(F->Name);
      Diagnostics << llvm::formatv("{0}:{1}: warning: reading the grid-stride "
                                   "loop of kernel '{2}' crashed, a gpumerge "
                                   "bug; the kernel goes on as written\n",
                                   File, F->Span.Line, F->Name);
    }
    if (G)
      R.Guarded[F->Name] = std::move(G);
    else if (!WhyNot.empty())
      R.Notes[F->Name] = WhyNot;
  }
  return R;
}

} // namespace gpumerge

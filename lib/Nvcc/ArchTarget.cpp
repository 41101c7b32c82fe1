//===- ArchTarget.cpp - The machine description for a build's GPUs --------===//
#include "Nvcc/ArchTarget.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace gpumerge;
using namespace gpumerge::nvcc;

unsigned nvcc::smNumber(const std::string &SmArch) {
  llvm::StringRef S(SmArch);
  unsigned N = 0;
  if (!S.consume_front("sm_") || S.consumeInteger(10, N))
    return 0;
  return N;
}

TargetChoice
nvcc::chooseTarget(const std::vector<unsigned> &Architectures,
                   const std::string &Symbolic,
                   std::vector<std::pair<std::string, unsigned>> Descriptions) {
  TargetChoice C;
  if (Descriptions.empty()) {
    C.Note = "no machine description has an nvcc architecture";
    return C;
  }
  std::sort(Descriptions.begin(), Descriptions.end(),
            [](const auto &A, const auto &B) {
              return A.second != B.second ? A.second < B.second
                                          : A.first < B.first;
            });
  auto Name = [&](unsigned Sm) {
    // The newest description not newer than Sm, else the oldest.
    const auto *Best = &Descriptions.front();
    for (const auto &D : Descriptions)
      if (D.second <= Sm)
        Best = &D;
    return *Best;
  };
  if (Symbolic == "all" || Symbolic == "all-major") {
    const auto &D = Descriptions.back();
    C.Target = D.first;
    C.Note = llvm::formatv("-arch={0}: optimizing for the newest described "
                           "GPU, {1} (sm_{2})",
                           Symbolic, D.first, D.second);
    return C;
  }
  unsigned Sm =
      Architectures.empty() ? NvccDefaultArchitecture : Architectures.back();
  auto [Target, TargetSm] = Name(Sm);
  C.Target = Target;
  std::string Which;
  if (Symbolic == "native")
    Which = llvm::formatv("-arch=native names no architecture gpumerge-nvcc "
                          "can read; optimizing for nvcc's default, sm_{0}",
                          Sm);
  else if (Architectures.empty())
    Which = llvm::formatv("no -arch given: optimizing for nvcc's default, "
                          "sm_{0}",
                          Sm);
  else if (Architectures.size() > 1) {
    std::string List;
    for (unsigned A : Architectures)
      List += (List.empty() ? "sm_" : ", sm_") + std::to_string(A);
    Which = llvm::formatv("several architectures ({0}): optimizing for the "
                          "newest, sm_{1}",
                          List, Sm);
  }
  if (TargetSm != Sm)
    Which +=
        llvm::formatv("{0}sm_{1} has no machine description: using {2} "
                      "(sm_{3}), the {4}",
                      Which.empty() ? "" : "; ", Sm, Target, TargetSm,
                      TargetSm < Sm ? "newest not newer" : "oldest there is");
  else if (!Which.empty())
    Which += " (" + Target + ")";
  C.Note = Which;
  return C;
}

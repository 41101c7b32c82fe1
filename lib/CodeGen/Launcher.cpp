//===- Launcher.cpp - Whether a LaunchPlan can be launched ----------------===//
//
// checkLaunchPlan and launchPlanProblem (Launcher.h): what the launch code
// needs of a plan, and of the module around it. The launch code itself is
// written by CudaLauncher.cpp and OpenCLLaunchHeader.cpp, over the checks
// of LaunchChecks.h.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Launcher.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/TemplateLaunch.h"
#include "IR/LaunchThreads.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

std::string launcherName(const std::string &Kernel) {
  return "gpumerge_launch_" + Kernel;
}

static const char *dimName(unsigned D) { return D == 0 ? "x" : "y"; }

llvm::Error checkLaunchPlan(const Function &F) {
  auto Fail = [&](const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "launch plan of kernel '%s': %s",
                                   F.Name.c_str(), Why.str().c_str());
  };
  if (!F.Plan)
    return Fail("there is none");
  const LaunchPlan &P = *F.Plan;
  if (P.Dims != 1 && P.Dims != 2)
    return Fail(llvm::formatv("{0} dimensions (1 or 2 expected)", P.Dims));
  if (!P.SameLaunch)
    for (unsigned D = 0; D < 2; ++D) {
      bool Used = D < P.Dims;
      if (P.Block[D] < 1 || P.Coverage[D] < 1 ||
          (!Used && (P.Block[D] != 1 || P.Coverage[D] != 1)))
        return Fail(llvm::formatv("block {0} and coverage {1} in {2} for a "
                                  "{3}-D plan",
                                  P.Block[D], P.Coverage[D], dimName(D),
                                  P.Dims));
    }
  if (P.Lanes < 1 || (P.Lanes > 1 && (P.Dims != 1 || !P.GuardsDomain)))
    return Fail(llvm::formatv("{0} lanes per naive thread (more than 1 only "
                              "in a 1-D plan that guards its own domain)",
                              P.Lanes));
  // Launch code sees the kernel's arguments, nothing else.
  // An element count may also name the naive launch's threads, which launch
  // code binds (IR/LaunchThreads.h).
  auto CheckExpr = [&](const Expr *E, const std::string &What,
                       bool LaunchThreads = false) -> llvm::Error {
    if (!E)
      return Fail(What + " is missing");
    std::string Bad;
    walkExpr(*E, [&](const Expr &X) {
      if (!Bad.empty())
        return;
      if (auto *V = llvm::dyn_cast<VarRef>(&X)) {
        if (LaunchThreads && launchThreadsDim(V->Name))
          return;
        const Param *Prm = F.findParam(V->Name);
        if (!Prm || Prm->isArray() || Prm->Ty.VectorWidth != 1)
          Bad = "'" + V->Name + "', which is not a scalar parameter";
      } else if (llvm::isa<BuiltinRef>(X) || llvm::isa<ArrayRef>(X) ||
                 llvm::isa<CallExpr>(X) || llvm::isa<MemberExpr>(X)) {
        Bad = "'" + printExprDebug(X) +
              "' (launch code sees the scalar parameters only)";
      }
    });
    if (!Bad.empty())
      return Fail(What + " uses " + Bad);
    return llvm::Error::success();
  };
  if (!P.SameLaunch)
    for (unsigned D = 0; D < P.Dims; ++D)
      if (P.Extent[D])
        if (auto E = CheckExpr(P.Extent[D].get(),
                               std::string("the extent in ") + dimName(D)))
          return E;
  for (const Precondition &C : P.Preconditions)
    if (auto E = CheckExpr(C.Cond.get(), "a precondition (" + C.Why + ")"))
      return E;
  for (const auto &[A, B] : P.Disjoint) {
    if (A == B)
      return Fail("array '" + A + "' must be disjoint from itself");
    for (const std::string &N : {A, B}) {
      const Param *Prm = F.findParam(N);
      if (!Prm || !Prm->isArray())
        return Fail("'" + N + "' in Disjoint is not an array parameter");
      auto It = P.Elements.find(N);
      if (auto E =
              CheckExpr(It == P.Elements.end() ? nullptr : It->second.get(),
                        "the element count of '" + N + "'",
                        /*LaunchThreads=*/true))
        return E;
    }
  }
  return llvm::Error::success();
}

std::string launchPlanProblem(const Module &M, const Function &Optimized,
                              Language L) {
  if (auto E = checkLaunchPlan(Optimized))
    return llvm::toString(std::move(E));
  const Function *Naive = M.find(Optimized.Name);
  if (!Naive)
    return "no kernel '" + Optimized.Name + "' in " + M.FileName;
  unsigned Overloads = 0;
  for (const auto &F : M.Functions)
    Overloads += F->Name == Optimized.Name;
  for (const Unsupported &U : M.PassedThrough)
    Overloads += U.Kernel == Optimized.Name;
  if (Overloads > 1)
    return "the kernel's name is overloaded";
  std::vector<std::string> Names = {fallbackName(Optimized.Name),
                                    launcherName(Optimized.Name)};
  // An instantiation's kernel takes a name of its own (scale_float).
  if (!Optimized.TemplateCall.empty())
    Names.push_back(Optimized.Name);
  if (Optimized.Plan->hasEdges())
    Names.push_back(edgeName(Optimized.Name));
  for (const std::string &N : Names)
    if (M.mentions(N))
      return "the input already uses the name '" + N + "'";

  // A 3-D grid runs its layers one per block in Z.
  const LaunchPlan &P = *Optimized.Plan;
  if (P.Layered && !P.SameLaunch && !P.LayerExtent)
    return "3-D grid: the optimized launch gives each layer its blocks, and "
           "needs the number of layers from one guard on the z position "
           "(z < d)";

  // Host code is kept only in a CUDA file written as CUDA, and there every
  // launch must go through the launcher: the kernel's name now stands for
  // the optimized kernel, which a naive launch would run wrongly.
  if (L != Language::Cuda || M.Lang != Language::Cuda)
    return "";
  // A kernel declared in a header can be launched from other files, which
  // gpumerge never sees (another .cu of the build, through the header): a
  // launch there keeps the naive grid and would run the optimized kernel.
  if (auto It = M.DeclaredInHeader.find(Optimized.Name);
      It != M.DeclaredInHeader.end())
    return llvm::formatv("the kernel is declared in {0}, so other files can "
                         "launch it as written, which would run the optimized "
                         "kernel on the naive grid",
                         It->second);
  for (const KernelCallSite &C : M.CallSites) {
    if (C.Kernel != Optimized.Name)
      continue;
    if (!C.NotRewritable.empty())
      return llvm::formatv("{0}:{1}: {2}", M.FileName, C.Call.Line,
                           C.NotRewritable);
    if (C.Call.Begin < Naive->Span.Begin && !C.Template.empty())
      return llvm::formatv("{0}:{1}: the launch leaves {2}'s instantiation to "
                           "a function template and precedes {2}'s "
                           "definition, which its dispatcher follows",
                           M.FileName, C.Call.Line, C.Template);
    if (C.Call.Begin < Naive->Span.Begin && !C.PrototypeBegin)
      return llvm::formatv("{0}:{1}: the launch precedes the kernel's "
                           "definition and its prototype is not in this file",
                           M.FileName, C.Call.Line);
    if (const KernelTemplate *T = M.findTemplate(C.Template))
      for (const std::string &N : templateDispatcherNames(*T))
        if (M.mentions(N))
          return llvm::formatv("{0}:{1}: the launch leaves {2}'s "
                               "instantiation to a function template, and "
                               "the input already uses the name '{3}' that "
                               "its dispatcher needs",
                               M.FileName, C.Call.Line, T->Name, N);
  }
  return "";
}

} // namespace gpumerge

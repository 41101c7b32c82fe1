//===- Launcher.cpp - Launch code for kernels with a LaunchPlan -----------===//
//
// The CUDA launcher and the OpenCL NDRange helper check the same things, in
// the same order, from the same plan; only the spelling differs (host C++
// with dim3 and pointers vs. C with size_t arrays and uintptr_t addresses),
// so both are written by one LaunchChecks with a Flavor.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Launcher.h"
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/PhasedLaunch.h"
#include "CodeGen/TemplateLaunch.h"
#include "IR/LaunchThreads.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <set>

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

void emitLine(std::string &Out, unsigned Indent, llvm::StringRef Line) {
  bool Comment = Line.startswith("// ");
  std::string Prefix(Indent, ' ');
  std::string Cont = Comment ? Prefix + "// " : std::string(Indent + 4, ' ');
  if (Comment) {
    Prefix += "// ";
    Line = Line.drop_front(3);
  }
  while (Prefix.size() + Line.size() > 80) {
    // The line up to the break, less its trailing space, must fit.
    llvm::StringRef Head = Line.substr(0, 80 - Prefix.size() + 1);
    size_t Break = llvm::StringRef::npos;
    if (!Comment)
      for (llvm::StringRef Sep : {"&& ", "|| ", ", "}) {
        size_t P = Head.rfind(Sep);
        if (P != llvm::StringRef::npos && P > 0 &&
            (Break == llvm::StringRef::npos || P + Sep.size() > Break))
          Break = P + Sep.size();
      }
    if (Break == llvm::StringRef::npos) {
      size_t P = Head.rfind(' ');
      if (P == llvm::StringRef::npos || P == 0)
        break;
      Break = P + 1;
    }
    Out += Prefix + Line.substr(0, Break).rtrim().str() + "\n";
    Line = Line.substr(Break).ltrim();
    Prefix = Cont;
  }
  Out += Prefix + Line.str() + "\n";
}

namespace {

/// \p E with the naive launch's threads (IR/LaunchThreads.h) spelled as
/// \p Threads says, per naive dimension.
ExprPtr bindLaunchThreads(const Expr &E,
                          const std::array<std::string, 2> &Threads) {
  return rewriteExpr(E.clone(), [&](Expr &X) -> ExprPtr {
    auto *V = llvm::dyn_cast<VarRef>(&X);
    auto D = V ? launchThreadsDim(V->Name) : std::nullopt;
    if (!D)
      return nullptr;
    const std::string &T = Threads[*D];
    bool Name = llvm::all_of(T, [](char C) {
      return llvm::isAlnum(C) || C == '_' || C == '[' || C == ']';
    });
    return var(Name ? T : "(" + T + ")", Type::scalar(ScalarKind::Long));
  });
}

/// \p E with every integer parameter cast to long long, so products such as
/// w * k do not overflow int in launch code; the naive launch's threads,
/// where \p Threads binds them, spelled as it says.
std::string widened(const Function &F, const Expr &E,
                    const std::array<std::string, 2> *Threads = nullptr) {
  ExprPtr Bound = Threads ? bindLaunchThreads(E, *Threads) : E.clone();
  ExprPtr W = rewriteExpr(std::move(Bound), [&](Expr &X) -> ExprPtr {
    auto *V = llvm::dyn_cast<VarRef>(&X);
    const Param *P = V ? F.findParam(V->Name) : nullptr;
    if (!P || !P->Ty.isInteger() || P->Ty.Scalar == ScalarKind::Long)
      return nullptr;
    return std::make_unique<CastExpr>(Type::scalar(ScalarKind::Long),
                                      X.clone());
  });
  return emitExpr(*W, Language::Cuda);
}

enum class Flavor { Cuda, C };

/// Names of the generated code's parameters and locals, renamed (with
/// trailing underscores) where a kernel parameter has the same name.
struct LocalNames {
  std::string Grid, Block, Smem, Stream, NaiveGlobal, Global, Local, Ok;
  std::string Extent[2], Blocks[2], Layers;

  explicit LocalNames(const Function &F) {
    auto Fresh = [&](std::string N) {
      return nameBesideParams(F, std::move(N));
    };
    Grid = Fresh("grid");
    Block = Fresh("block");
    Smem = Fresh("smem");
    Stream = Fresh("stream");
    NaiveGlobal = Fresh("naive_global");
    Global = Fresh("global");
    Local = Fresh("local");
    Ok = Fresh("ok");
    Layers = Fresh("layers");
    for (unsigned D = 0; D < 2; ++D) {
      Extent[D] = Fresh(std::string("extent_") + dimName(D));
      Blocks[D] = Fresh(std::string("blocks_") + dimName(D));
    }
  }

  /// What the naive launch covers in naive dimension \p D, as a long long:
  /// grid * block (CUDA), the naive global size (an NDRange helper).
  std::string naiveThreads(unsigned D, Flavor Fl) const {
    if (Fl == Flavor::Cuda)
      return llvm::formatv("(long long){0}.{2} * {1}.{2}", Grid, Block,
                           dimName(D));
    return llvm::formatv("(long long){0}[{1}]", NaiveGlobal, D);
  }
  /// The element count \p E of an array, as launch code of \p Fl spells it.
  std::string elements(const Function &F, const Expr &E, Flavor Fl) const {
    std::array<std::string, 2> Threads = {naiveThreads(0, Fl),
                                          naiveThreads(1, Fl)};
    return widened(F, E, &Threads);
  }
};

/// The checks of a plan, as statements setting `ok`, for either flavor.
class LaunchChecks {
public:
  LaunchChecks(const Function &F, Flavor Fl) : F(F), P(*F.Plan), Fl(Fl), N(F) {}

  /// Declarations of the extents and blocks, `ok` and its checks.
  void emit(std::string &Out) {
    if (!P.SameLaunch)
      emitDomain(Out);
    emitLine(Out, 2,
             Fl == Flavor::Cuda ? "bool " + N.Ok + " = true;"
                                : "int " + N.Ok + " = 1;");
    if (!P.SameLaunch)
      emitTiles(Out);
    for (unsigned D = 0; D < 2; ++D)
      if (F.FixedBlock[D]) {
        comment(Out, llvm::formatv("{0}'s thread positions assume blocks of "
                                   "{1} threads in {2} (blockIdx.{3} * {1} + "
                                   "threadIdx.{3}): the naive launch must "
                                   "have them.",
                                   F.Name, F.FixedBlock[D], D == 0 ? "X" : "Y",
                                   dimName(D)));
        check(Out, llvm::formatv("{0}.{1} == {2}", N.Block, dimName(D),
                                 F.FixedBlock[D]));
      }
    for (const Precondition &C : P.Preconditions) {
      comment(Out, C.Why.empty() ? "A precondition of the optimized kernel."
                                 : C.Why);
      check(Out, "(" + emitExpr(*C.Cond, Language::Cuda) + ")");
    }
    for (const auto &[A, Bytes] : P.AlignedBytes) {
      comment(Out, llvm::formatv("{0} accesses {1} as {2}-byte vectors.",
                                 F.Name, A, Bytes));
      check(Out, llvm::formatv(Fl == Flavor::Cuda
                                   ? "((unsigned long long)(const void *){0} "
                                     "% {1} == 0)"
                                   : "({0} % {1} == 0)",
                               A, Bytes));
    }
    if (P.Disjoint.empty())
      return;
    comment(Out, "Bytes of the arrays that must not overlap.");
    std::set<std::string> Sized;
    for (const auto &[A, B] : P.Disjoint)
      for (const std::string &X : {A, B})
        if (Sized.insert(X).second)
          emitLine(Out, 2,
                   (Fl == Flavor::Cuda ? "const size_t " : "const uintptr_t ") +
                       bytes(X) + " = " +
                       (Fl == Flavor::Cuda ? "(size_t)(" : "(uintptr_t)(") +
                       elements(*P.Elements.at(X)) + ") * " + elementBytes(X) +
                       ";");
    for (const auto &[A, B] : P.Disjoint) {
      if (P.readsThroughTexture(A) || P.readsThroughTexture(B)) {
        const std::string &T = P.readsThroughTexture(A) ? A : B;
        comment(Out, llvm::formatv("{0} reads {1} through the texture cache, "
                                   "which does not see the writes of the "
                                   "same launch: {2} and {3} must not "
                                   "overlap.",
                                   F.Name, T, A, B));
        check(Out, "(" + address(A) + " + " + bytes(A) + " <= " + address(B) +
                       " || " + address(B) + " + " + bytes(B) +
                       " <= " + address(A) + ")");
        continue;
      }
      comment(Out, llvm::formatv("{0} keeps part of {1} or {2} on chip ({3} "
                                 "memory or registers) while the other is "
                                 "accessed: their address ranges must not "
                                 "overlap.",
                                 F.Name, A, B,
                                 Fl == Flavor::Cuda ? "shared" : "local"));
      check(Out, "(" + address(A) + " + " + bytes(A) + " <= " + address(B) +
                     " || " + address(B) + " + " + bytes(B) +
                     " <= " + address(A) + ")");
    }
  }

  const LocalNames &names() const { return N; }
  EdgeLocals edgeLocals() const {
    EdgeLocals L;
    for (unsigned D = 0; D < 2; ++D) {
      L.Extent[D] = N.Extent[D];
      L.Blocks[D] = N.Blocks[D];
    }
    if (layered())
      L.Layers = N.Layers;
    return L;
  }
  /// Launched over the layers of a 3-D grid, one per block in Z.
  bool layered() const { return P.Layered && !P.SameLaunch; }

  /// Names the checks read, so the C flavor can mark the others unused.
  std::set<std::string> usedNames() const {
    std::set<std::string> Used;
    auto Add = [&](const Expr *E) {
      if (E)
        walkExpr(*E, [&](const Expr &X) {
          if (auto *V = llvm::dyn_cast<VarRef>(&X))
            Used.insert(V->Name);
        });
    };
    if (!P.SameLaunch)
      for (unsigned D = 0; D < P.Dims; ++D)
        Add(P.Extent[D].get());
    for (const Precondition &C : P.Preconditions)
      Add(C.Cond.get());
    for (const auto &[A, B] : P.Disjoint)
      for (const std::string &X : {A, B}) {
        Used.insert(X);
        Add(P.Elements.at(X).get());
      }
    for (const auto &[A, Bytes] : P.AlignedBytes)
      Used.insert(A);
    return Used;
  }

private:
  const Function &F;
  const LaunchPlan &P;
  Flavor Fl;
  LocalNames N;

  void comment(std::string &Out, const std::string &Text) {
    emitLine(Out, 2, "// " + Text);
  }
  void check(std::string &Out, const std::string &Cond) {
    emitLine(Out, 2, N.Ok + " = " + N.Ok + " && " + Cond + ";");
  }

  /// What the naive launch covers in \p D, as a long long.
  std::string naiveThreads(unsigned D) const { return N.naiveThreads(D, Fl); }

  /// An element count: the naive launch's threads are the extent declared
  /// where the plan's domain is what the launch covers.
  std::string elements(const Expr &E) const {
    std::array<std::string, 2> Threads = {naiveThreads(0), naiveThreads(1)};
    if (!P.SameLaunch)
      for (unsigned D = 0; D < P.Dims; ++D)
        if (!P.Extent[D])
          Threads[P.naiveDim(D)] = N.Extent[D];
    return widened(F, E, &Threads);
  }

  bool roundsUp(unsigned D) const { return P.GuardsDomain && P.Extent[D]; }

  void emitDomain(std::string &Out) {
    unsigned Guarded = 0;
    for (unsigned D = 0; D < P.Dims; ++D)
      Guarded += P.Extent[D] != nullptr;
    comment(Out, Guarded == P.Dims ? "The naive domain: the bounds in the "
                                     "input kernel's guard."
                 : Guarded == 0
                     ? "The naive domain: what the naive launch covers."
                     : "The naive domain: the bounds in the input kernel's "
                       "guard, or what the naive launch covers where it has "
                       "none.");
    for (unsigned D = 0; D < P.Dims; ++D)
      emitLine(Out, 2,
               "const long long " + N.Extent[D] + " = " +
                   (P.Extent[D] ? widened(F, *P.Extent[D])
                                : naiveThreads(P.naiveDim(D))) +
                   ";");
    if (layered()) {
      comment(Out, "The layers of the 3-D grid: the bound in its z guard.");
      emitLine(Out, 2,
               "const long long " + N.Layers + " = " +
                   widened(F, *P.LayerExtent) + ";");
    }
    for (unsigned D = 0; D < P.Dims; ++D) {
      std::int64_t T = P.tile(D);
      std::string Blocks =
          roundsUp(D)
              ? llvm::formatv("({0} + {1}) / {2}", N.Extent[D], T - 1, T).str()
              : llvm::formatv("{0} / {1}", N.Extent[D], T).str();
      emitLine(Out, 2, "const long long " + N.Blocks[D] + " = " + Blocks + ";");
    }
  }

  void emitTiles(std::string &Out) {
    std::string Shape = llvm::formatv("{0} x {1}", P.tile(0), P.tile(1));
    bool Cuda = Fl == Flavor::Cuda;
    if (P.Lanes > 1)
      comment(Out, llvm::formatv("Each {0} of {1} computes {2} elements ({0} "
                                 "{3} x 1, {4} {5}s per element, each a share "
                                 "of its loop) and checks its own bounds: "
                                 "the domain must not be empty.",
                                 Cuda ? "block" : "work-group", F.Name,
                                 P.Block[0], P.threads(0), P.Lanes,
                                 Cuda ? "thread" : "work-item"));
    else
      comment(Out, llvm::formatv(
                       "Each {0} of {1} computes a {2} tile ({0} "
                       "{3} x {4}, {5} x {6} elements per {8}){7}",
                       Cuda ? "block" : "work-group", F.Name, Shape, P.Block[0],
                       P.Block[1], P.Coverage[0], P.Coverage[1],
                       P.GuardsDomain
                           ? std::string(" and checks its own bounds: the "
                                         "domain must not be empty, and be "
                                         "whole tiles where there is no guard.")
                           : llvm::formatv(": the domain must hold one whole "
                                           "tile; {0} computes what the tiles "
                                           "leave.",
                                           edgeName(F.Name))
                                 .str(),
                       Cuda ? "thread" : "work-item"));
    // (Launched differently from the naive kernel: with edges unless the
    // kernel guards its own domain.)
    for (unsigned D = 0; D < P.Dims; ++D)
      check(Out, roundsUp(D)       ? N.Extent[D] + " > 0"
                 : !P.GuardsDomain ? N.Blocks[D] + " > 0"
                                   : llvm::formatv("{0} > 0 && {0} % {1} == 0",
                                                   N.Extent[D], P.tile(D))
                                         .str());
    // The kernel's positions are ints: the last tile's must stay below
    // 2^31, which bounds gridDim.x too. (In Y, CUDA's 2^16 blocks of a
    // tile of at most 2^15 rows keep them there.)
    auto PositionsFit = [&](unsigned D) {
      return P.tile(D) > 1 ? llvm::formatv("{0} * {1} <= 2147483647LL",
                                           N.Blocks[D], P.tile(D))
                                 .str()
                           : N.Blocks[D] + " <= 2147483647LL";
    };
    if (!Cuda) {
      comment(Out, "The positions of the last tile must be ints: below 2^31.");
      std::string Fits = PositionsFit(0);
      if (P.Dims > 1)
        Fits += " && " + PositionsFit(1);
      check(Out, Fits);
    } else {
      comment(Out, P.Dims > 1
                       ? "The grid must fit, gridDim.y < 2^16, and the "
                         "positions of the last tile in X be ints: below 2^31."
                       : "The grid must fit, and the positions of the last "
                         "tile be ints: below 2^31.");
      std::string Fits = PositionsFit(0);
      if (P.Dims > 1)
        Fits += " && " + N.Blocks[1] + " <= 65535";
      // The edge launches have 8 rows per block (edgeBlock).
      if (P.Dims > 1 && P.hasEdges())
        Fits += llvm::formatv(" && ({0} + 7) / 8 <= 65535",
                              N.Extent[P.naiveDim(1)]);
      check(Out, Fits);
    }
    bool Copies = P.CopiesAllowed[0] || P.CopiesAllowed[1];
    if (F.GridStrideLine)
      comment(Out, llvm::formatv(
                       "The optimized kernel computes the whole domain once. "
                       "The input's grid-stride loop (line {0}) covers it "
                       "with any {1}, so that need not{2}",
                       F.GridStrideLine, Cuda ? "grid" : "NDRange",
                       Copies ? std::string(".")
                              : llvm::formatv("; it must have one {0} in the "
                                              "dimensions the kernel does not "
                                              "index.",
                                              Cuda ? "thread" : "work-item")
                                    .str()));
    else if (Copies)
      comment(Out, Cuda ? "The optimized kernel computes the whole domain "
                          "once: the naive launch must have covered it."
                        : "The optimized kernel computes the whole domain "
                          "once: the naive NDRange must have covered it.");
    else
      comment(Out, Cuda ? "The optimized kernel computes the whole domain "
                          "once: the naive launch must have covered it, with "
                          "one thread in the dimensions the kernel does not "
                          "index."
                        : "The optimized kernel computes the whole domain "
                          "once: the naive NDRange must have covered it, "
                          "with one work-item in a dimension the kernel does "
                          "not index.");
    std::vector<std::string> Copied;
    for (unsigned D = 1; D < 3; ++D)
      if (P.CopiesAllowed[D - 1] && (D < 2 || Cuda))
        Copied.push_back(D == 1 ? "Y" : "Z");
    if (!Copied.empty())
      comment(Out, llvm::formatv("Where it has more than one {0} in {1}, the "
                                 "{0}s that differ only there compute the "
                                 "same elements, and each reads only what it "
                                 "wrote: the copies leave what one leaves, so "
                                 "their number does not matter.",
                                 Cuda ? "thread" : "work-item",
                                 llvm::join(Copied, " or ")));
    for (unsigned D = 0; D < 2; ++D) {
      if (D >= P.Dims && P.CopiesAllowed[D - 1])
        continue;
      if (D >= P.Dims)
        check(Out, naiveThreads(D) + " == 1");
      else if (P.Extent[D] && !F.GridStrideLine)
        check(Out, naiveThreads(P.naiveDim(D)) + " >= " + N.Extent[D]);
    }
    if (Fl == Flavor::C && layered()) {
      comment(Out, llvm::formatv("{0} runs each layer of the 3-D NDRange in "
                                 "work-groups one layer deep: the naive "
                                 "NDRange must have covered the layers.",
                                 F.Name));
      check(Out,
            llvm::formatv("{0} > 0 && {1} >= {0}", N.Layers, naiveThreads(2)));
    } else if (Fl == Flavor::Cuda && layered()) {
      comment(Out, llvm::formatv("{0} runs each layer of the 3-D grid in "
                                 "blocks one layer deep: the naive launch "
                                 "must have covered the layers, and gridDim.z "
                                 "< 2^16.",
                                 F.Name));
      check(Out, llvm::formatv("{0} > 0 && {0} <= 65535 && (long long){1}.z * "
                               "{2}.z >= {0}",
                               N.Layers, N.Grid, N.Block));
    } else if (Fl == Flavor::Cuda && !P.CopiesAllowed[1]) {
      check(Out,
            llvm::formatv("(long long){0}.z * {1}.z == 1", N.Grid, N.Block));
    }
  }

  /// Bytes of one element (a scalar or vector, also for a pointer to rows)
  /// of array parameter \p A: Elements counts those.
  std::string elementBytes(const std::string &A) const {
    const Param *Prm = F.findParam(A);
    if (Fl == Flavor::C)
      return std::to_string(Prm->Ty.element().elementBytes()) + "u";
    return "sizeof(" + std::string(1 + Prm->Ty.InnerExtents.size(), '*') + A +
           ")";
  }
  std::string address(const std::string &A) const {
    return Fl == Flavor::Cuda ? "(const char *)" + A : A;
  }
  /// The local holding the bytes of array \p A.
  std::string bytes(const std::string &A) const {
    return nameBesideParams(F, A + "_bytes");
  }
};

std::string cudaParams(const Function &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  makeEmitter(Language::Cuda, OS)->printParams(F);
  return OS.str();
}

std::string argumentList(const Function &F) {
  std::vector<std::string> Names;
  for (const Param &P : F.Params)
    Names.push_back(P.Name);
  return llvm::join(Names, ", ");
}

/// Does the optimized kernel take texture objects (texture-memory, object
/// form), which the launcher makes?
bool takesTextureObjects(const Function &F) {
  return F.Plan && F.Plan->Texture == TextureForm::Object &&
         !F.Plan->TextureArrays.empty();
}

/// The arguments of the optimized kernel: the texture objects in place of
/// the arrays they stand for.
std::string optimizedArgumentList(const Function &F) {
  std::vector<std::string> Names;
  for (const Param &P : F.Params)
    Names.push_back(takesTextureObjects(F) &&
                            F.Plan->readsThroughTexture(P.Name)
                        ? textureParamName(F, P.Name, Language::Cuda)
                        : P.Name);
  return llvm::join(Names, ", ");
}

/// Elements of texture array \p A (scalars: a true 2-D array's count is
/// flattened already), as a long long expression over the parameters.
std::string textureElements(const Function &F, const std::string &A) {
  return "(long long)(" +
         LocalNames(F).elements(F, *F.Plan->Elements.at(A), Flavor::Cuda) + ")";
}

/// The launcher's texture objects (texture-memory, object form): declared,
/// and created over the arrays' linear memory when `ok` still holds; a
/// texture that cannot be made clears `ok`, so the naive kernel runs.
void emitTextureObjects(const Function &F, const std::string &Ok,
                        std::string &Out) {
  const LaunchPlan &P = *F.Plan;
  std::string Device = nameBesideParams(F, "tex_device"),
              MaxLinear = nameBesideParams(F, "tex_max_linear"),
              Align = nameBesideParams(F, "tex_alignment");
  emitLine(Out, 2,
           "// " + F.Name + " reads " + llvm::join(P.TextureArrays, ", ") +
               " through texture objects over their linear memory, made "
               "here and destroyed after the launch; " +
               fallbackCall(F) +
               " runs where one cannot be made (more elements than the "
               "device's maxTexture1DLinear, memory not aligned for "
               "textures, or creation failing).");
  std::vector<std::string> Decls;
  for (const std::string &A : P.TextureArrays)
    Decls.push_back(textureParamName(F, A, Language::Cuda) + " = 0");
  emitLine(Out, 2, "cudaTextureObject_t " + llvm::join(Decls, ", ") + ";");
  emitLine(Out, 2,
           "int " + Device + " = 0, " + MaxLinear + " = 0, " + Align + " = 0;");
  emitLine(Out, 2,
           Ok + " = " + Ok + " && cudaGetDevice(&" + Device +
               ") == cudaSuccess && cudaDeviceGetAttribute(&" + MaxLinear +
               ", cudaDevAttrMaxTexture1DLinearWidth, " + Device +
               ") == cudaSuccess && cudaDeviceGetAttribute(&" + Align +
               ", cudaDevAttrTextureAlignment, " + Device +
               ") == cudaSuccess && " + Align + " > 0;");
  for (const std::string &A : P.TextureArrays) {
    const Param *Prm = F.findParam(A);
    ScalarKind K = Prm->Ty.Scalar;
    // Read as float4 (vectorize): a four-channel object over the whole
    // vectors, a quarter of the elements.
    bool Vec = P.TextureVectorWidth.count(A);
    std::string T = K == ScalarKind::Float ? "float"
                    : K == ScalarKind::Int ? "int"
                                           : "unsigned int";
    if (Vec)
      T = K == ScalarKind::Float ? "float4"
          : K == ScalarKind::Int ? "int4"
                                 : "uint4";
    std::string Tex = textureParamName(F, A, Language::Cuda);
    std::string Elems = nameBesideParams(F, Tex + "_elements");
    std::string Res = nameBesideParams(F, Tex + "_resource"),
                Desc = nameBesideParams(F, Tex + "_description");
    emitLine(Out, 2,
             "const long long " + Elems + " = " + textureElements(F, A) +
                 (Vec ? " / 4;" : ";"));
    emitLine(Out, 2,
             Ok + " = " + Ok + " && " + Elems + " > 0 && " + Elems +
                 " <= (long long)" + MaxLinear + " && (size_t)" + A + " % " +
                 "(size_t)" + Align + " == 0;");
    emitLine(Out, 2, "if (" + Ok + ") {");
    emitLine(Out, 4, "cudaResourceDesc " + Res + " = {};");
    emitLine(Out, 4, Res + ".resType = cudaResourceTypeLinear;");
    emitLine(Out, 4, Res + ".res.linear.devPtr = (void *)" + A + ";");
    emitLine(Out, 4,
             Res + ".res.linear.desc = cudaCreateChannelDesc<" + T + ">();");
    emitLine(Out, 4,
             Res + ".res.linear.sizeInBytes = (size_t)" + Elems + " * sizeof(" +
                 T + ");");
    emitLine(Out, 4, "cudaTextureDesc " + Desc + " = {};");
    emitLine(Out, 4, Desc + ".readMode = cudaReadModeElementType;");
    emitLine(Out, 4,
             Ok + " = cudaCreateTextureObject(&" + Tex + ", &" + Res + ", &" +
                 Desc + ", nullptr) == cudaSuccess;");
    emitLine(Out, 4,
             "// A failure is not the application's error: clear it, and "
             "the naive kernel runs.");
    emitLine(Out, 4, "if (!" + Ok + ")");
    emitLine(Out, 6, "(void)cudaGetLastError();");
    emitLine(Out, 2, "}");
  }
}

/// Destroys the texture objects emitTextureObjects made, once the launch
/// that reads them is done (a texture object must outlive its use).
void emitTextureCleanup(const Function &F, const std::string &Stream,
                        std::string &Out) {
  std::vector<std::string> Made;
  for (const std::string &A : F.Plan->TextureArrays)
    Made.push_back(textureParamName(F, A, Language::Cuda));
  emitLine(Out, 2,
           "// Texture objects must outlive the kernel reading them: wait for "
           "the launch, then destroy those made.");
  emitLine(Out, 2, "if (" + llvm::join(Made, " || ") + ")");
  emitLine(Out, 4, "(void)cudaStreamSynchronize(" + Stream + ");");
  for (const std::string &T : Made) {
    emitLine(Out, 2, "if (" + T + ")");
    emitLine(Out, 4, "(void)cudaDestroyTextureObject(" + T + ");");
  }
}

/// The scalar types \p F spells with a name of the input's (a typedef or a
/// macro: `FPTYPE` → `float`), but the CUDA runtime's handles: the
/// optimized kernel was made for those types (its vectors, tiles and
/// alignment), and a build that names other ones must run the input's.
std::map<std::string, std::string> namedScalarTypes(const Function &F) {
  std::map<std::string, std::string> Named;
  std::string Unused;
  llvm::raw_string_ostream OS(Unused);
  std::unique_ptr<Printer> Cuda = makeEmitter(Language::Cuda, OS);
  forEachType(F, [&](const Type &T) {
    if (T.TypedefName.empty() || T.VectorWidth != 1 ||
        T.TypedefName == "cudaTextureObject_t" ||
        T.TypedefName == "cudaSurfaceObject_t")
      return;
    Type Plain = T.element();
    Plain.TypedefName.clear();
    Plain.IsConst = false;
    Named.emplace(T.TypedefName, Cuda->typeSpelling(Plain));
  });
  return Named;
}

std::string cudaLauncherSignature(const Function &F, const LocalNames &N) {
  std::string Params = cudaParams(F);
  return "[[maybe_unused]] static void " + launcherName(F.Name) + "(dim3 " +
         N.Grid + ", dim3 " + N.Block + ", size_t " + N.Smem +
         ", cudaStream_t " + N.Stream + (Params.empty() ? "" : ", ") + Params +
         ")";
}

} // namespace

std::string emitCudaLauncherDeclaration(const Function &F) {
  std::string Out;
  emitLine(Out, 0,
           "// Defined after " + F.Name + "; launches before it call it.");
  emitLine(Out, 0, cudaLauncherSignature(F, LocalNames(F)) + ";");
  return Out;
}

std::string emitCudaLauncher(const Function &F) {
  const LaunchPlan &P = *F.Plan;
  LaunchChecks Checks(F, Flavor::Cuda);
  const LocalNames &N = Checks.names();
  std::string Out;
  emitLine(Out, 0,
           llvm::formatv("// The launch of {0}, generated by gpumerge: every "
                         "{2}<<<grid, block, smem, stream>>>(...) of the "
                         "input calls this. The optimized {0} runs where "
                         "the checks below hold; {1}, the input's kernel, "
                         "runs as launched otherwise.",
                         F.Name, fallbackCall(F),
                         F.TemplateCall.empty() ? F.Name : F.TemplateCall)
               .str());
  std::map<std::string, std::string> Named = namedScalarTypes(F);
  emitLine(Out, 0, cudaLauncherSignature(F, N) + " {");
  Checks.emit(Out);
  for (const auto &[Name, Spelled] : Named) {
    emitLine(Out, 2,
             llvm::formatv("// {0} was optimized where {1} is {2}: built "
                           "with another {1}, the input's kernel runs.",
                           F.Name, Name, Spelled)
                 .str());
    // A built-in of nvcc's front end and of GCC and Clang: no header, and
    // no template to define once per file (bench-gpu includes each output
    // in a namespace of its own).
    emitLine(
        Out, 2,
        llvm::formatv("{0} = {0} && __is_same({1}, {2});", N.Ok, Name, Spelled)
            .str());
  }
  std::string Args = argumentList(F);
  std::string OptArgs = optimizedArgumentList(F);
  if (takesTextureObjects(F))
    emitTextureObjects(F, N.Ok, Out);
  bool Edges = P.hasEdges();
  emitLine(Out, 2, "if (" + N.Ok + ")" + (Edges ? " {" : ""));
  if (P.SameLaunch) {
    emitLine(Out, 4,
             llvm::formatv("{0}<<<{1}, {2}, {3}, {4}>>>({5});",
                           launchedName(F, F.Name), N.Grid, N.Block, N.Smem,
                           N.Stream, OptArgs)
                 .str());
  } else {
    std::string Layers =
        Checks.layered() ? ", (unsigned)" + N.Layers : std::string();
    std::string Grid =
        P.Dims > 1
            ? llvm::formatv("dim3((unsigned){0}, (unsigned){1}{2})",
                            N.Blocks[0], N.Blocks[1], Layers)
                  .str()
            : llvm::formatv("dim3((unsigned){0}, 1{1})", N.Blocks[0], Layers)
                  .str();
    // Static shared memory only: no dynamic bytes.
    emitLine(Out, 4,
             llvm::formatv("{0}<<<{1}, dim3({2}, {3}), 0, {4}>>>({5});",
                           launchedName(F, F.Name), Grid, P.threads(0),
                           P.threads(1), N.Stream, OptArgs)
                 .str());
  }
  if (Edges)
    Out += emitCudaEdgeLaunches(F, Checks.edgeLocals(), N.Stream, Args, 4);
  emitLine(Out, 2, Edges ? "} else {" : "else");
  emitLine(Out, 4,
           llvm::formatv("{0}<<<{1}, {2}, {3}, {4}>>>({5});",
                         launchedName(F, fallbackCall(F)), N.Grid, N.Block,
                         N.Smem, N.Stream, Args)
               .str());
  if (Edges)
    emitLine(Out, 2, "}");
  if (takesTextureObjects(F))
    emitTextureCleanup(F, N.Stream, Out);
  Out += "}\n";
  return Out;
}

/// The C type of a scalar kernel argument as the host passes it.
static const char *hostCType(ScalarKind K) {
  switch (K) {
  case ScalarKind::Bool:
  case ScalarKind::Int:
    return "int";
  case ScalarKind::Char:
    return "signed char";
  case ScalarKind::UChar:
    return "unsigned char";
  case ScalarKind::Short:
    return "short";
  case ScalarKind::UShort:
    return "unsigned short";
  case ScalarKind::UInt:
    return "unsigned int";
  case ScalarKind::Long:
    return "int64_t"; // cl_long
  case ScalarKind::ULong:
    return "uint64_t";
  case ScalarKind::Float:
  case ScalarKind::Half: // the OpenCL kernel's float (OpenCLEmitter.h)
  case ScalarKind::BFloat16:
    return "float";
  case ScalarKind::Double:
    return "double";
  case ScalarKind::Void:
    break;
  }
  return "int";
}

static std::string openCLNDRange(const Function &F) {
  const LaunchPlan &P = *F.Plan;
  LaunchChecks Checks(F, Flavor::C);
  const LocalNames &N = Checks.names();
  // A 3-D kernel's helper takes the NDRange's three dimensions.
  const unsigned Rank = Checks.layered() ? 3 : 2;
  const std::string Dims = "[" + std::to_string(Rank) + "]";
  std::vector<std::string> Params = {"const size_t " + N.NaiveGlobal + Dims};
  for (const Param &Prm : F.Params)
    if (!Prm.isArray() && Prm.Ty.VectorWidth == 1)
      Params.push_back(std::string(hostCType(Prm.Ty.Scalar)) + " " + Prm.Name);
  for (const Param &Prm : F.Params)
    if (Prm.isArray())
      Params.push_back("uintptr_t " + Prm.Name);
  Params.push_back("size_t " + N.Global + Dims);
  Params.push_back("size_t " + N.Local + Dims);
  const bool Edges = P.hasEdges();
  const std::string EdgesOut = nameBesideParams(F, "edges");
  if (Edges)
    Params.push_back("gpumerge_edges *" + EdgesOut);

  std::string Out;
  if (P.SameLaunch)
    emitLine(Out, 0,
             llvm::formatv("// {0}: the naive NDRange, under the checks "
                           "below.",
                           F.Name)
                 .str());
  else if (P.Lanes > 1)
    emitLine(Out, 0,
             llvm::formatv("// {0}: work-groups of {1} x 1, {2} work-items "
                           "per element of the naive domain.",
                           F.Name, P.threads(0), P.Lanes)
                 .str());
  else
    emitLine(Out, 0,
             llvm::formatv("// {0}: work-groups of {1} x {2}, each work-item "
                           "{3} x {4} elements of the naive domain.",
                           F.Name, P.Block[0], P.Block[1], P.Coverage[0],
                           P.Coverage[1])
                 .str());
  if (Edges)
    emitLine(Out, 0,
             llvm::formatv("// Where it returns 1, {0} computes what {1}'s "
                           "whole tiles leave: enqueue it after {1} as {2} "
                           "says (gpumerge_edges).",
                           edgeName(F.Name), F.Name, EdgesOut)
                 .str());
  emitLine(Out, 0,
           "static inline int gpumerge_" + F.Name + "_ndrange(" +
               llvm::join(Params, ", ") + ") {");
  Checks.emit(Out);
  std::set<std::string> Used = Checks.usedNames();
  for (const Param &Prm : F.Params)
    if (!Used.count(Prm.Name) && (Prm.isArray() || Prm.Ty.VectorWidth == 1))
      emitLine(Out, 2, "(void)" + Prm.Name + "; // not needed by the checks");
  if (P.SameLaunch) {
    emitLine(Out, 2, "// Same NDRange either way; local: the caller's own.");
    for (unsigned D = 0; D < Rank; ++D) {
      emitLine(Out, 2,
               llvm::formatv("{0}[{1}] = {2}[{1}];", N.Global, D, N.NaiveGlobal)
                   .str());
      emitLine(Out, 2, llvm::formatv("{0}[{1}] = 0;", N.Local, D).str());
    }
    emitLine(Out, 2, "return " + N.Ok + ";");
    Out += "}\n";
    return Out;
  }
  emitLine(Out, 2, "if (!" + N.Ok + ") {");
  for (unsigned D = 0; D < Rank; ++D)
    emitLine(Out, 4,
             llvm::formatv("{0}[{1}] = {2}[{1}];", N.Global, D, N.NaiveGlobal)
                 .str());
  emitLine(Out, 4,
           N.Local + "[0] = 0; // the caller's own local size, or NULL");
  for (unsigned D = 1; D < Rank; ++D)
    emitLine(Out, 4, llvm::formatv("{0}[{1}] = 0;", N.Local, D).str());
  if (Edges)
    emitLine(Out, 4, EdgesOut + "->count = 0;");
  emitLine(Out, 4, "return 0;");
  emitLine(Out, 2, "}");
  for (unsigned D = 0; D < 2; ++D) {
    if (D < P.Dims)
      emitLine(Out, 2,
               llvm::formatv("{0}[{1}] = (size_t){2} * {3};", N.Global, D,
                             N.Blocks[D], P.threads(D))
                   .str());
    else
      emitLine(Out, 2, llvm::formatv("{0}[{1}] = 1;", N.Global, D).str());
    emitLine(Out, 2,
             llvm::formatv("{0}[{1}] = {2};", N.Local, D, P.threads(D)).str());
  }
  if (Rank == 3) {
    emitLine(Out, 2,
             llvm::formatv("{0}[2] = (size_t){1};", N.Global, N.Layers).str());
    emitLine(Out, 2, N.Local + "[2] = 1;");
  }
  if (Edges)
    Out += emitOpenCLEdgeRanges(F, Checks.edgeLocals(), EdgesOut, 2);
  emitLine(Out, 2, "return 1;");
  Out += "}\n";
  return Out;
}

/// The arrays of \p F read as images (texture-memory; float, int and
/// unsigned int arrays).
static std::vector<std::string> imageArrays(const Function &F) {
  std::vector<std::string> Out;
  if (F.Plan)
    for (const std::string &A : F.Plan->TextureArrays)
      if (const Param *P = F.findParam(A))
        if (F.Plan->readsAsImage(A, P->Ty.element()))
          Out.push_back(A);
  return Out;
}

/// gpumerge_<name>_images(): the images over the buffers that the texture
/// variant's kernel reads (clCreateImage, CL_MEM_OBJECT_IMAGE1D_BUFFER,
/// CL_R), or 0 when one cannot be made (too many elements for
/// CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, no image support): then <name>_naive,
/// which reads the buffers, must run.
static std::string openCLImages(const Function &F) {
  std::vector<std::string> Arrays = imageArrays(F);
  auto Fresh = [&](std::string N) { return nameBesideParams(F, std::move(N)); };
  std::string Context = Fresh("context"), Device = Fresh("device"),
              Err = Fresh("err"), Max = Fresh("max_width"),
              Format = Fresh("format"), Desc = Fresh("desc"),
              Width = Fresh("width");
  std::vector<std::string> Params = {"cl_context " + Context,
                                     "cl_device_id " + Device};
  // A kernel without a guard reads as far as its NDRange reaches
  // (IR/LaunchThreads.h): the helper then takes the naive global size too.
  LocalNames N(F);
  bool Launch = false;
  for (const std::string &A : Arrays)
    walkExpr(*F.Plan->Elements.at(A), [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Launch |= launchThreadsDim(V->Name).has_value();
    });
  if (Launch)
    Params.push_back("const size_t *" + N.NaiveGlobal);
  for (const Param &Prm : F.Params)
    if (!Prm.isArray() && Prm.Ty.VectorWidth == 1)
      Params.push_back(std::string(hostCType(Prm.Ty.Scalar)) + " " + Prm.Name);
  for (const std::string &A : Arrays)
    Params.push_back("cl_mem " + A);
  for (const std::string &A : Arrays)
    Params.push_back("cl_mem *" + textureParamName(F, A, Language::OpenCL));
  std::set<std::string> Used;
  for (const std::string &A : Arrays)
    walkExpr(*F.Plan->Elements.at(A), [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Used.insert(V->Name);
    });

  std::string Out;
  emitLine(Out, 0,
           "// " + F.Name + " reads " + llvm::join(Arrays, ", ") +
               " as image1d_buffer_t: the images over those buffers, or 0 "
               "(and no image) when one cannot be made; then " +
               fallbackName(F.Name) +
               ", which reads the buffers, must run. "
               "Release the images after the kernel has run.");
  emitLine(Out, 0,
           "static inline int gpumerge_" + F.Name + "_images(" +
               llvm::join(Params, ", ") + ") {");
  emitLine(Out, 2, "cl_int " + Err + " = CL_SUCCESS;");
  emitLine(Out, 2, "size_t " + Max + " = 0;");
  emitLine(Out, 2, "cl_image_format " + Format + ";");
  emitLine(Out, 2, "cl_image_desc " + Desc + ";");
  for (const Param &Prm : F.Params)
    if (!Prm.isArray() && Prm.Ty.VectorWidth == 1 && !Used.count(Prm.Name))
      emitLine(Out, 2, "(void)" + Prm.Name + "; // not needed for the sizes");
  for (const std::string &A : Arrays)
    emitLine(Out, 2,
             "*" + textureParamName(F, A, Language::OpenCL) + " = NULL;");
  emitLine(Out, 2,
           "if (clGetDeviceInfo(" + Device +
               ", CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof(" + Max + "), &" +
               Max + ", NULL) != CL_SUCCESS)");
  emitLine(Out, 4, "return 0;");
  for (const std::string &A : Arrays) {
    const Param *P = F.findParam(A);
    std::string Img = textureParamName(F, A, Language::OpenCL);
    ScalarKind K = P->Ty.Scalar;
    std::array<std::string, 2> Threads = {N.NaiveGlobal + "[0]",
                                          N.NaiveGlobal + "[1]"};
    emitLine(Out, 2,
             "// " + A + ": " +
                 printExprDebug(
                     *bindLaunchThreads(*F.Plan->Elements.at(A), Threads)) +
                 " elements.");
    emitLine(Out, 2, "{");
    emitLine(Out, 4,
             "const long long " + Width + " = (long long)(" +
                 N.elements(F, *F.Plan->Elements.at(A), Flavor::C) + ")" +
                 (F.Plan->TextureVectorWidth.count(A) ? " / 4;" : ";"));
    emitLine(Out, 4,
             "if (" + Width + " <= 0 || (unsigned long long)" + Width +
                 " > (unsigned long long)" + Max + ")");
    emitLine(Out, 6, "goto fail;");
    if (F.Plan->TextureVectorWidth.count(A))
      emitLine(Out, 4, "// Read as 4-vectors: RGBA texels, a quarter as many.");
    emitLine(Out, 4,
             Format + ".image_channel_order = " +
                 (F.Plan->TextureVectorWidth.count(A) ? "CL_RGBA;" : "CL_R;"));
    emitLine(Out, 4,
             Format + ".image_channel_data_type = " +
                 (K == ScalarKind::Float ? "CL_FLOAT"
                  : K == ScalarKind::Int ? "CL_SIGNED_INT32"
                                         : "CL_UNSIGNED_INT32") +
                 ";");
    emitLine(Out, 4, "memset(&" + Desc + ", 0, sizeof(" + Desc + "));");
    emitLine(Out, 4, Desc + ".image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;");
    emitLine(Out, 4, Desc + ".image_width = (size_t)" + Width + ";");
    emitLine(Out, 4, Desc + ".buffer = " + A + ";");
    emitLine(Out, 4,
             "*" + Img + " = clCreateImage(" + Context +
                 ", CL_MEM_READ_ONLY, &" + Format + ", &" + Desc + ", NULL, &" +
                 Err + ");");
    emitLine(Out, 4, "if (" + Err + " != CL_SUCCESS) {");
    emitLine(Out, 6, "*" + Img + " = NULL;");
    emitLine(Out, 6, "goto fail;");
    emitLine(Out, 4, "}");
    emitLine(Out, 2, "}");
  }
  emitLine(Out, 2, "return 1;");
  Out += "fail:\n";
  for (const std::string &A : Arrays) {
    std::string Img = textureParamName(F, A, Language::OpenCL);
    emitLine(Out, 2, "if (*" + Img + ")");
    emitLine(Out, 4, "clReleaseMemObject(*" + Img + ");");
    emitLine(Out, 2, "*" + Img + " = NULL;");
  }
  emitLine(Out, 2, "return 0;");
  Out += "}\n";
  return Out;
}

std::string emitOpenCLLaunchHeader(
    const Module &M,
    const std::map<std::string, const Function *> &Replacements) {
  std::vector<const Function *> Planned;
  for (const Function *F : M.kernels()) {
    auto It = Replacements.find(F->Name);
    if (It != Replacements.end() && It->second->Plan &&
        launchPlanProblem(M, *It->second, Language::OpenCL).empty())
      Planned.push_back(It->second);
  }
  if (Planned.empty() && M.Phased.empty())
    return "";
  std::string Stem = llvm::sys::path::stem(M.FileName).str();
  std::string Guard = "GPUMERGE_";
  for (char C : Stem)
    Guard += llvm::isAlnum(C) ? llvm::toUpper(C) : '_';
  Guard += "_LAUNCH_H";

  std::string Out;
  emitLine(Out, 0,
           "// Generated by gpumerge from " +
               llvm::sys::path::filename(M.FileName).str() +
               ": NDRange helpers for the host of the OpenCL kernels written "
               "beside this header.");
  Out += R"(//
// Each kernel K below is in the .cl file twice: K, optimized for a fixed
// work-group shape and correct only under conditions checked at run time,
// and K_naive, the input's kernel. Both take the same arguments. Where the
// host enqueued K with a global size naive_global, it calls
//
//   size_t global[2], local[2];
//   if (gpumerge_K_ndrange(naive_global, <scalar arguments>,
//                          <buffer addresses>, global, local))
//     enqueue K with work_dim 2, global and local;
//   else
//     enqueue K_naive with global (naive_global, copied) and the local size
//     it used before (local is 0: pass NULL to let the runtime choose);
//
// naive_global: the global size the input enqueued K with ({n, 1} for a
//   one-dimensional launch).
// scalar arguments: K's scalar (non-buffer) arguments, in order.
// buffer addresses: for each buffer argument of K, in order, an address
//   such that two buffers overlap exactly when their byte ranges from these
//   addresses do: the SVM pointer, or a sub-buffer's origin in its parent;
//   for separate cl_mem objects any addresses far enough apart, such as
//   (uintptr_t)i << 40 for the i-th. All 0: unknown, and K_naive runs
//   wherever K needs the buffers disjoint.
// Returns 1 when K may run (global is then a multiple of local), 0 when
// K_naive must. A kernel on a 3-D NDRange (get_global_id(2), its layers)
// takes naive_global, global and local of three elements, and runs with
// work_dim 3.
)";
  bool Images = false, Edges = false;
  for (const Function *F : Planned) {
    Images |= !imageArrays(*F).empty();
    Edges |= F->Plan->hasEdges();
  }
  if (Edges)
    Out += R"(//
// Kernels with tiles: K computes the domain's whole tiles, and K_edge, the
// input's kernel with its positions offset, what they leave. Their helper
// takes a last argument, a gpumerge_edges *, and fills it where it returns
// 1: after K, enqueue K_edge over each range it lists (see the type).
)";
  if (Images)
    Out += R"(//
// Texture variant: a kernel K that reads arrays as images (texture-memory)
// takes an image1d_buffer_t where K_naive takes the buffer. Before enqueuing
// K, call gpumerge_K_images(context, device, <scalar arguments>, <those
// buffers>, <image outputs>) (a kernel without a bounds guard takes the
// naive global size after device, as its NDRange helper does, since its
// arrays reach as far as the NDRange); when it returns 0 (an array has more
// elements than CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, or the device has no
// images), enqueue K_naive as above. Release the images once K has run.
)";
  Out += "#ifndef " + Guard + "\n#define " + Guard + "\n\n";
  Out += "#include <stddef.h>\n#include <stdint.h>\n";
  if (Images)
    Out += "#include <string.h>\n\n#ifndef CL_TARGET_OPENCL_VERSION\n"
           "#define CL_TARGET_OPENCL_VERSION 120\n#endif\n"
           "#include <CL/cl.h>\n";
  if (Edges)
    Out += "\n" + emitOpenCLEdgesType();
  for (const Function *F : Planned) {
    Out += "\n" + openCLNDRange(*F);
    if (!imageArrays(*F).empty())
      Out += "\n" + openCLImages(*F);
  }
  for (const PhasedKernel &PK : M.Phased)
    Out += "\n" + emitOpenCLPhaseTable(PK);
  Out += "\n#endif // " + Guard + "\n";
  return Out;
}

} // namespace gpumerge

//===- LaunchChecks.cpp - The checks both launch flavors write ------------===//
//
// The CUDA launcher and the OpenCL NDRange helper check the same things, in
// the same order, from the same plan; only the spelling differs (host C++
// with dim3 and pointers vs. C with size_t arrays and uintptr_t addresses),
// so both are written by one LaunchChecks with a Flavor.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/LaunchChecks.h"
#include "CodeGen/Emitter.h"
#include "IR/LaunchThreads.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

static const char *dimName(unsigned D) { return D == 0 ? "x" : "y"; }

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
                    const std::array<std::string, 2> *Threads) {
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

LocalNames::LocalNames(const Function &F) {
  auto Fresh = [&](std::string N) { return nameBesideParams(F, std::move(N)); };
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

std::string LocalNames::naiveThreads(unsigned D, Flavor Fl) const {
  if (Fl == Flavor::Cuda)
    return llvm::formatv("(long long){0}.{2} * {1}.{2}", Grid, Block,
                         dimName(D));
  return llvm::formatv("(long long){0}[{1}]", NaiveGlobal, D);
}

std::string LocalNames::elements(const Function &F, const Expr &E,
                                 Flavor Fl) const {
  std::array<std::string, 2> Threads = {naiveThreads(0, Fl),
                                        naiveThreads(1, Fl)};
  return widened(F, E, &Threads);
}

void LaunchChecks::emit(std::string &Out) {
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
    comment(Out,
            C.Why.empty() ? "A precondition of the optimized kernel." : C.Why);
    check(Out, "(" + emitExpr(*C.Cond, Language::Cuda) + ")");
  }
  for (const auto &[A, Bytes] : P.AlignedBytes) {
    comment(Out, llvm::formatv("{0} accesses {1} as {2}-byte vectors.", F.Name,
                               A, Bytes));
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

EdgeLocals LaunchChecks::edgeLocals() const {
  EdgeLocals L;
  for (unsigned D = 0; D < 2; ++D) {
    L.Extent[D] = N.Extent[D];
    L.Blocks[D] = N.Blocks[D];
  }
  if (layered())
    L.Layers = N.Layers;
  return L;
}

std::set<std::string> LaunchChecks::usedNames() const {
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

std::string LaunchChecks::elements(const Expr &E) const {
  std::array<std::string, 2> Threads = {naiveThreads(0), naiveThreads(1)};
  if (!P.SameLaunch)
    for (unsigned D = 0; D < P.Dims; ++D)
      if (!P.Extent[D])
        Threads[P.naiveDim(D)] = N.Extent[D];
  return widened(F, E, &Threads);
}

void LaunchChecks::emitDomain(std::string &Out) {
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

void LaunchChecks::emitTiles(std::string &Out) {
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
      Fits +=
          llvm::formatv(" && ({0} + 7) / 8 <= 65535", N.Extent[P.naiveDim(1)]);
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
    check(Out, llvm::formatv("(long long){0}.z * {1}.z == 1", N.Grid, N.Block));
  }
}

std::string LaunchChecks::elementBytes(const std::string &A) const {
  const Param *Prm = F.findParam(A);
  if (Fl == Flavor::C)
    return std::to_string(Prm->Ty.element().elementBytes()) + "u";
  return "sizeof(" + std::string(1 + Prm->Ty.InnerExtents.size(), '*') + A +
         ")";
}

void LaunchChecks::comment(std::string &Out, const std::string &Text) {
  emitLine(Out, 2, "// " + Text);
}

void LaunchChecks::check(std::string &Out, const std::string &Cond) {
  emitLine(Out, 2, N.Ok + " = " + N.Ok + " && " + Cond + ";");
}

} // namespace gpumerge

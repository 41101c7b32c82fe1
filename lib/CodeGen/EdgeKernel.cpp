//===- EdgeKernel.cpp - The domain an optimized kernel's tiles leave ------===//
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "IR/Substitute.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

static const char *dimName(unsigned D) { return D == 0 ? "x" : "y"; }

std::unique_ptr<Function> edgeKernel(const Function &Optimized) {
  const LaunchPlan &P = *Optimized.Plan;
  const Function &Naive = P.Origin ? *P.Origin : Optimized;
  std::unique_ptr<Function> E = Naive.clone();
  E->Name = edgeName(Optimized.Name);
  E->Plan.reset();
  E->NameSpan.reset();
  std::set<std::string> Taken = declaredNames(Naive);
  ExprPtr Outside;
  std::vector<StmtPtr> Body;
  for (unsigned D = 0; D < P.Dims; ++D) {
    std::string Lo = uniqueName(Taken, std::string("edge_") + dimName(D) + "0");
    std::string Hi = uniqueName(Taken, std::string("edge_") + dimName(D) + "1");
    E->Params.push_back({Lo, Type::scalar(ScalarKind::Int)});
    E->Params.push_back({Hi, Type::scalar(ScalarKind::Int)});
    Builtin Pos = D == 0 ? Builtin::Idx : Builtin::Idy;
    substituteBuiltin(*E->Body, Pos, *add(builtin(Pos), var(Lo)));
    ExprPtr Past = binary(BinaryOp::GE, add(builtin(Pos), var(Lo)), var(Hi));
    Outside = Outside
                  ? binary(BinaryOp::LOr, std::move(Outside), std::move(Past))
                  : std::move(Past);
  }
  Body.push_back(std::make_unique<IfStmt>(std::move(Outside),
                                          std::make_unique<ReturnStmt>()));
  for (StmtPtr &S : E->Body->Body)
    Body.push_back(std::move(S));
  E->Body->Body = std::move(Body);
  return E;
}

std::array<std::int64_t, 2> edgeBlock(unsigned Dims) {
  return Dims > 1 ? std::array<std::int64_t, 2>{32, 8}
                  : std::array<std::int64_t, 2>{256, 1};
}

std::vector<EdgeRange>
edgeRanges(const LaunchPlan &P,
           const std::array<std::int64_t, 2> &NaiveDomain) {
  std::array<std::int64_t, 2> Done = {1, 1}, Extent = {1, 1};
  for (unsigned N = 0; N < P.Dims; ++N) {
    std::int64_t T = P.tile(P.naiveDim(N));
    Extent[N] = NaiveDomain[N];
    Done[N] = NaiveDomain[N] / T * T;
  }
  std::vector<EdgeRange> Out;
  if (Done[0] < Extent[0]) // the columns right of the tiles, every row
    Out.push_back({{Done[0], 0}, {Extent[0], Extent[1]}});
  if (P.Dims > 1 && Done[1] < Extent[1]) // the rows below them
    Out.push_back({{0, Done[1]}, {Done[0], Extent[1]}});
  return Out;
}

namespace {

/// The text of edgeRanges(), as expressions over the launcher's locals:
/// one range per dimension of the plan (Dims), launched when it is not
/// empty (When).
struct EdgeText {
  unsigned Dims;
  /// Per naive dimension, the part of the domain the tiles cover.
  std::array<std::string, 2> Done;
  std::array<std::int64_t, 2> Block;
  /// The ranges: [Lo, Hi) per naive dimension.
  std::array<std::array<std::string, 2>, 2> Lo, Hi;
  std::array<std::string, 2> When;

  EdgeText(const Function &F, const EdgeLocals &L) {
    const LaunchPlan &P = *F.Plan;
    Dims = P.Dims;
    Block = edgeBlock(Dims);
    std::array<std::string, 2> Extent;
    for (unsigned N = 0; N < Dims; ++N) {
      Extent[N] = L.Extent[P.naiveDim(N)];
      Done[N] = nameBesideParams(F, std::string("done_") + dimName(N));
    }
    When[0] = Done[0] + " < " + Extent[0];
    Lo[0] = {Done[0], "0"};
    Hi[0] = {Extent[0], Extent[1]};
    if (Dims > 1) {
      When[1] = Done[1] + " < " + Extent[1];
      Lo[1] = {"0", Done[1]};
      Hi[1] = {Done[0], Extent[1]};
    }
  }

  /// `const long long done_x = blocks_x * 128;` per dimension.
  void declareDone(const Function &F, const EdgeLocals &L, std::string &Out,
                   unsigned Indent) const {
    const LaunchPlan &P = *F.Plan;
    for (unsigned N = 0; N < Dims; ++N) {
      unsigned D = P.naiveDim(N);
      emitLine(Out, Indent,
               llvm::formatv("const long long {0} = {1} * {2};", Done[N],
                             L.Blocks[D], P.tile(D))
                   .str());
    }
  }

  /// Threads of range \p R in naive dimension \p N, rounded up to blocks.
  std::string blocks(unsigned R, unsigned N) const {
    if (Lo[R][N] == "0")
      return llvm::formatv("({0} + {1}) / {2}", Hi[R][N], Block[N] - 1,
                           Block[N]);
    return llvm::formatv("({0} - {1} + {2}) / {3}", Hi[R][N], Lo[R][N],
                         Block[N] - 1, Block[N]);
  }

  /// The ints appended to the kernel's arguments for range \p R.
  std::vector<std::string> bounds(unsigned R) const {
    std::vector<std::string> B;
    for (unsigned N = 0; N < Dims; ++N)
      for (const std::string &X : {Lo[R][N], Hi[R][N]})
        B.push_back(X == "0" ? X : "(int)" + X);
    return B;
  }

  std::string comment(const Function &F) const {
    return Dims > 1
               ? llvm::formatv("// What the whole tiles leave of the domain: "
                               "{0}, the input's kernel with its positions "
                               "offset, computes the columns from {1} on in "
                               "every row, then the rows from {2} on left of "
                               "them.",
                               edgeName(F.Name), Done[0], Done[1])
                     .str()
               : llvm::formatv("// What the whole tiles leave of the domain: "
                               "{0}, the input's kernel with its positions "
                               "offset, computes the elements from {1} on.",
                               edgeName(F.Name), Done[0])
                     .str();
  }
};

} // namespace

std::string emitCudaEdgeLaunches(const Function &F, const EdgeLocals &L,
                                 const std::string &Stream,
                                 const std::string &Args, unsigned Indent) {
  EdgeText T(F, L);
  std::string Out;
  emitLine(Out, Indent, T.comment(F));
  T.declareDone(F, L, Out, Indent);
  for (unsigned R = 0; R < T.Dims; ++R) {
    std::string Layers = L.Layers.empty() ? "" : ", (unsigned)" + L.Layers;
    std::string Grid =
        T.Dims > 1 ? llvm::formatv("dim3((unsigned)({0}), (unsigned)({1}){2})",
                                   T.blocks(R, 0), T.blocks(R, 1), Layers)
                         .str()
        : Layers.empty()
            ? llvm::formatv("dim3((unsigned)({0}))", T.blocks(R, 0)).str()
            : llvm::formatv("dim3((unsigned)({0}), 1{1})", T.blocks(R, 0),
                            Layers)
                  .str();
    std::string Block =
        T.Dims > 1
            ? llvm::formatv("dim3({0}, {1})", T.Block[0], T.Block[1]).str()
            : llvm::formatv("dim3({0})", T.Block[0]).str();
    emitLine(Out, Indent, "if (" + T.When[R] + ")");
    emitLine(Out, Indent + 2,
             llvm::formatv("{0}<<<{1}, {2}, 0, {3}>>>({4}, {5});",
                           launchedName(F, edgeName(F.Name)), Grid, Block,
                           Stream, Args, llvm::join(T.bounds(R), ", "))
                 .str());
  }
  return Out;
}

std::string emitOpenCLEdgesType() {
  return "/* The launches of <name>_edge that an NDRange helper with a\n"
         "   gpumerge_edges argument asks for when it returns 1: after\n"
         "   <name>, enqueue <name>_edge count times, the i-th over global\n"
         "   size global[i] and local size local, with <name>'s arguments\n"
         "   (the buffers, also where <name> takes images) followed by the\n"
         "   ints bounds[i] (x0, x1, y0, y1; a 1-D kernel takes x0, x1).\n"
         "   The third element of global[i] and local counts the layers of\n"
         "   a 3-D kernel (work_dim 3); it is 1 for the others. */\n"
         "#ifndef GPUMERGE_EDGES_DEFINED\n"
         "#define GPUMERGE_EDGES_DEFINED\n"
         "typedef struct {\n"
         "  int count;\n"
         "  size_t global[2][3];\n"
         "  size_t local[3];\n"
         "  int bounds[2][4];\n"
         "} gpumerge_edges;\n"
         "#endif\n";
}

std::string emitOpenCLEdgeRanges(const Function &F, const EdgeLocals &L,
                                 const std::string &Edges, unsigned Indent) {
  EdgeText T(F, L);
  std::string Out;
  emitLine(Out, Indent, T.comment(F));
  T.declareDone(F, L, Out, Indent);
  emitLine(Out, Indent, Edges + "->count = 0;");
  for (unsigned N = 0; N < 2; ++N)
    emitLine(
        Out, Indent,
        llvm::formatv("{0}->local[{1}] = {2};", Edges, N, T.Block[N]).str());
  emitLine(Out, Indent, Edges + "->local[2] = 1;");
  for (unsigned R = 0; R < T.Dims; ++R) {
    emitLine(Out, Indent, "if (" + T.When[R] + ") {");
    std::string At = Edges + "->count";
    for (unsigned N = 0; N < 2; ++N)
      emitLine(Out, Indent + 2,
               N < T.Dims
                   ? llvm::formatv("{0}->global[{1}][{2}] = (size_t)({3}) * "
                                   "{4};",
                                   Edges, At, N, T.blocks(R, N), T.Block[N])
                         .str()
                   : llvm::formatv("{0}->global[{1}][{2}] = 1;", Edges, At, N)
                         .str());
    emitLine(Out, Indent + 2,
             llvm::formatv("{0}->global[{1}][2] = {2};", Edges, At,
                           L.Layers.empty() ? "1" : "(size_t)" + L.Layers)
                 .str());
    std::vector<std::string> B = T.bounds(R);
    for (unsigned I = 0; I < 4; ++I)
      emitLine(Out, Indent + 2,
               llvm::formatv("{0}->bounds[{1}][{2}] = {3};", Edges, At, I,
                             I < B.size() ? B[I] : "0")
                   .str());
    emitLine(Out, Indent + 2, "++" + At + ";");
    emitLine(Out, Indent, "}");
  }
  return Out;
}

} // namespace gpumerge

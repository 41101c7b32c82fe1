//===- ModuleEmitterTest.cpp - Files written in place, edit by edit -------===//
//
// Written in its own language, a module is the input text with edits: each
// replaced function's definition, its launches, its prototypes. Two edits
// that overlap are a gpumerge bug, and applied anyway they would write a
// broken file. In every build (asserts on or off) the kernels that made them
// are written as the input wrote them, with a warning that calls it an
// internal error; edits that no kernel made fail the file.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/Emitter.h"
#include "Frontend/Frontend.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace {

const char *TwoKernels = R"(__global__ void scale(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 2.0f * a[i];
}

__global__ void shift(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = a[i] + 1.0f;
}
)";

std::unique_ptr<Module> parse(const std::string &Source) {
  auto M = parseSource(Source, "two.cu", {});
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

Function &kernel(Module &M, const std::string &Name) {
  for (auto &F : M.Functions)
    if (F->Name == Name)
      return *F;
  ADD_FAILURE() << "no kernel " << Name;
  return *M.Functions.front();
}

/// \p F printed differently (its size parameter renamed), so that the
/// output replaces its definition.
std::unique_ptr<Function> changed(const Function &F) {
  std::unique_ptr<Function> R = F.clone();
  R->Params.back().Name = "count";
  return R;
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

TEST(ModuleEmitter, ReplacementsEditTheirDefinitions) {
  auto M = parse(TwoKernels);
  ASSERT_TRUE(M);
  auto Scale = changed(kernel(*M, "scale"));
  auto Shift = changed(kernel(*M, "shift"));
  auto E = emitModule(*M, Language::Cuda,
                      {{"scale", Scale.get()}, {"shift", Shift.get()}});
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_FALSE(E->InternalError);
  EXPECT_TRUE(E->Warnings.empty());
  EXPECT_TRUE(contains(E->Text, "void scale(float *a, int count)")) << E->Text;
  EXPECT_TRUE(contains(E->Text, "void shift(float *a, int count)")) << E->Text;
}

// shift's definition made to start inside scale's: the two edits overlap.
// Both kernels are written as the input wrote them, each with a warning.
TEST(ModuleEmitter, OverlappingEditsCostTheirKernels) {
  auto M = parse(TwoKernels);
  ASSERT_TRUE(M);
  Function &ShiftIn = kernel(*M, "shift");
  ShiftIn.Span.Begin = kernel(*M, "scale").Span.End - 10;
  auto Scale = changed(kernel(*M, "scale"));
  auto Shift = changed(ShiftIn);
  auto E = emitModule(*M, Language::Cuda,
                      {{"scale", Scale.get()}, {"shift", Shift.get()}});
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_TRUE(E->InternalError);
  EXPECT_EQ(E->Text, M->Source);
  ASSERT_EQ(E->Warnings.size(), 2u);
  EXPECT_TRUE(contains(E->Warnings[0], "two.cu:1: kernel 'scale' written "
                                       "unoptimized: internal error: its "
                                       "edits of the input overlap"))
      << E->Warnings[0];
  EXPECT_TRUE(contains(E->Warnings[1], "kernel 'shift' written unoptimized: "
                                       "internal error"))
      << E->Warnings[1];
}

// An edit past the end of the input costs its kernel alone: scale is still
// written from its replacement.
TEST(ModuleEmitter, EditPastTheInputCostsItsKernel) {
  auto M = parse(TwoKernels);
  ASSERT_TRUE(M);
  Function &ShiftIn = kernel(*M, "shift");
  auto Scale = changed(kernel(*M, "scale"));
  auto Shift = changed(ShiftIn);
  ShiftIn.Span.End = M->Source.size() + 1;
  auto E = emitModule(*M, Language::Cuda,
                      {{"scale", Scale.get()}, {"shift", Shift.get()}});
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_TRUE(E->InternalError);
  ASSERT_EQ(E->Warnings.size(), 1u);
  EXPECT_TRUE(contains(E->Warnings[0], "kernel 'shift' written unoptimized: "
                                       "internal error"))
      << E->Warnings[0];
  EXPECT_TRUE(contains(E->Warnings[0], "the end of the input"))
      << E->Warnings[0];
  EXPECT_TRUE(contains(E->Text, "void scale(float *a, int count)")) << E->Text;
  EXPECT_TRUE(contains(E->Text, "void shift(float *a, int n)")) << E->Text;
}

// Kernels printed from KIR whatever the replacements (the original
// compiler's dialect) make edits no replacement can take back: overlapping,
// they fail the file.
TEST(ModuleEmitter, OverlappingEditsOfNoKernelAreAnError) {
  auto M = parse(TwoKernels);
  ASSERT_TRUE(M);
  kernel(*M, "scale").PaperDialect = true;
  kernel(*M, "shift").PaperDialect = true;
  kernel(*M, "shift").Span.Begin = kernel(*M, "scale").Span.End - 10;
  auto E = emitModule(*M, Language::Cuda);
  ASSERT_FALSE(bool(E));
  std::string Message = llvm::toString(E.takeError());
  EXPECT_TRUE(contains(Message, "two.cu: internal error: two edits of the "
                                "input overlap"))
      << Message;
  EXPECT_TRUE(contains(Message, "no kernel made them")) << Message;
}

} // namespace

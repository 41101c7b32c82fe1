//===- TextureTest.cpp - The texture variant's block and form -------------===//
//
// §3.5.1's block shapes (one warp; 8 wide for 2-D outputs; a cache line of
// elements along the dimension a read-only array is read contiguously in),
// stacked to 256 threads on the __ldg targets, the default CUDA texture
// form per target, and the form texture-memory reads arrays in per variant.
//
//===----------------------------------------------------------------------===//
#include "Target/MachineDescription.h"
#include "Transforms/PassRegistry.h"
#include "Transforms/Passes.h"
#include "Transforms/TextureBlockShape.h"

#include "TestKernels.h"

using namespace gpumerge;

namespace {

std::array<std::int64_t, 2> blockOf(const Module &M,
                                    const std::string &Target) {
  return textureBlockShape(*M.kernels().front(), shippedTarget(Target)).Block;
}

using Block = std::array<std::int64_t, 2>;

} // namespace

TEST(TextureBlockShape, OneWarpForOneDimensionalOutputs) {
  auto M = parseKernelFile("mv.cu");
  ASSERT_TRUE(M);
  EXPECT_EQ(blockOf(*M, "gtx285"), (Block{32, 1}));
  EXPECT_EQ(blockOf(*M, "hd5870"), (Block{64, 1})); // a wavefront
  // sm_35+: eight warps, as one-warp blocks cannot fill the SM.
  EXPECT_EQ(blockOf(*M, "h100"), (Block{256, 1}));
}

TEST(TextureBlockShape, ReadAlongXTakesACacheLineOfElements) {
  // mm reads b[i*w + x]: 64-byte lines hold 16 floats, 128-byte lines 32.
  auto M = parseKernelFile("mm.cu");
  ASSERT_TRUE(M);
  EXPECT_EQ(blockOf(*M, "gtx285"), (Block{16, 2}));
  EXPECT_EQ(blockOf(*M, "hd5870"), (Block{16, 4}));
  EXPECT_EQ(blockOf(*M, "h100"), (Block{32, 8})); // 32x1, stacked
  // Doubles: 8 per 64-byte line, no wider than the 8x4 default.
  auto D = parseKernelFile("mm_double.cu");
  ASSERT_TRUE(D);
  EXPECT_EQ(blockOf(*D, "gtx285"), (Block{8, 4}));
  EXPECT_EQ(blockOf(*D, "h100"), (Block{16, 16})); // 16x2, stacked
}

TEST(TextureBlockShape, ReadAlongYStretchesY) {
  // The read-side transpose: out is written along X, in read along Y.
  auto M = parseText(R"(
__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = in[x * h + y];
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(blockOf(*M, "gtx285"), (Block{2, 16}));
  // Stacked along X, the short side: the column still covers a line.
  EXPECT_EQ(blockOf(*M, "h100"), (Block{8, 32}));
  EXPECT_FALSE(textureBlockShape(*M->kernels().front(), shippedTarget("h100"))
                   .Interchange);
}

TEST(TextureBlockShape, WriteAlongYExchangesPositions) {
  // Writes do not go through the texture cache: madd_rowx (every access
  // along Y) and tp (out[x*h + y]) have idx and idy exchanged, and a warp
  // writes a row.
  for (const char *File : {"madd_rowx.cu", "tp.cu"}) {
    SCOPED_TRACE(File);
    auto M = parseKernelFile(File);
    ASSERT_TRUE(M);
    TextureBlock TB =
        textureBlockShape(*M->kernels().front(), shippedTarget("gtx285"));
    EXPECT_TRUE(TB.Interchange);
    EXPECT_EQ(TB.Block, (Block{32, 1}));
    EXPECT_EQ(blockOf(*M, "h100"), (Block{32, 8})); // stacked
  }
}

TEST(TextureBlockShape, NoLocalityKeepsEightByFour) {
  auto M = parseText(R"(
__global__ void k(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = in[(y * w + x) * 2];
}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(blockOf(*M, "gtx285"), (Block{8, 4}));
  EXPECT_EQ(blockOf(*M, "hd5870"), (Block{8, 8}));
  EXPECT_EQ(blockOf(*M, "v100"), (Block{8, 32})); // 8x4, stacked
}

TEST(TextureMemory, DefaultFormFollowsTheArchitecture) {
  EXPECT_EQ(defaultTextureForm(shippedTarget("gtx280")), TextureForm::Object);
  EXPECT_EQ(defaultTextureForm(shippedTarget("gtx285")), TextureForm::Object);
  EXPECT_EQ(defaultTextureForm(shippedTarget("gtx480")), TextureForm::Object);
  EXPECT_EQ(defaultTextureForm(shippedTarget("hd5870")), TextureForm::Object);
  EXPECT_EQ(defaultTextureForm(shippedTarget("v100")), TextureForm::Ldg);
  EXPECT_EQ(defaultTextureForm(shippedTarget("a100")), TextureForm::Ldg);
  EXPECT_EQ(defaultTextureForm(shippedTarget("h100")), TextureForm::Ldg);
}

namespace {

/// The form texture-memory reads mv's arrays in, on \p Target in the
/// texture variant (the paper's where \p Paper).
std::optional<TextureForm> formOn(const std::string &Target, bool Paper,
                                  std::optional<TextureForm> Given = {}) {
  auto M = parseKernelFile("mv.cu");
  if (!M)
    return std::nullopt;
  std::unique_ptr<Function> F = M->kernels().front()->clone();
  MachineDescription MD = shippedTarget(Target);
  PassContext Ctx{MD, MemoryVariant::Texture};
  Ctx.PaperTextureAsked = Paper;
  Ctx.Texture = Given;
  std::string Why;
  auto R = textureMemoryPass().Run(*F, Ctx, Why);
  if (!R) {
    llvm::consumeError(R.takeError());
    return std::nullopt;
  }
  if (!*R || !F->Plan)
    return std::nullopt;
  return F->Plan->Texture;
}

} // namespace

TEST(TextureMemory, FormFollowsTheVariant) {
  // sm_35+: the texture variant is the global one read through
  // const __restrict__; the paper's, asked by name, takes __ldg.
  EXPECT_EQ(formOn("h100", false), TextureForm::Restrict);
  EXPECT_EQ(formOn("a100", false), TextureForm::Restrict);
  EXPECT_EQ(formOn("h100", true), TextureForm::Ldg);
  // Before sm_35 the paper's variant, with texture objects.
  EXPECT_EQ(formOn("gtx285", false), TextureForm::Object);
  // --texture decides where given.
  EXPECT_EQ(formOn("h100", false, TextureForm::Ldg), TextureForm::Ldg);
  EXPECT_EQ(formOn("gtx480", false, TextureForm::Restrict),
            TextureForm::Restrict);
  EXPECT_STREQ(textureFormName(TextureForm::Restrict), "restrict");
}

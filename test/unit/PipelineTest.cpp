//===- PipelineTest.cpp - One kernel through a list of passes -------------===//
//
// Pipeline/Pipeline.h over passes of the tests' own (a registry given in
// the request): a pass that crashes, fails or leaves malformed KIR is
// dropped with an internal-error note and the next pass starts from the
// kernel before it; a pass that does not apply leaves the kernel as it
// was; a texture variant whose arrays texture-memory did not take is
// written unchanged; the steps --emit-steps writes; the pass lists.
//
//===----------------------------------------------------------------------===//

#include "Pipeline/Pipeline.h"
#include "IR/Printer.h"
#include "Pipeline/InputRewrites.h"
#include "Transforms/GridStride.h"

#include "llvm/Support/CrashRecoveryContext.h"

#include "gtest/gtest.h"

#include "TestKernels.h"

#include <cstdlib>

using namespace gpumerge;

namespace {

const char *Saxpy = R"(
__global__ void k(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i] + y[i];
}
)";

/// A well-formed change a test can see: the kernel's last statement once
/// more (`if (i < n) y[i] = ...` twice).
void repeatLastStatement(Function &F) {
  F.Body->Body.push_back(F.Body->Body.back()->clone());
}

/// A pass of the tests' own.
PassInfo fakePass(const std::string &Name, PassFn Run) {
  PassInfo P;
  P.Name = Name;
  P.Summary = "a pass of PipelineTest";
  P.Run = std::move(Run);
  return P;
}

/// Applies: repeats the last statement.
PassInfo repeatPass(const std::string &Name) {
  return fakePass(Name,
                  [Name](Function &F, const PassContext &, std::string &)
                      -> llvm::Expected<std::optional<AppliedPass>> {
                    repeatLastStatement(F);
                    return AppliedPass{Name, {{"repeated", "1"}}};
                  });
}

/// Does not apply, saying \p Why, after changing its copy.
PassInfo declinePass(const std::string &Name, const std::string &Why) {
  return fakePass(Name,
                  [Why](Function &F, const PassContext &, std::string &WhyNot)
                      -> llvm::Expected<std::optional<AppliedPass>> {
                    repeatLastStatement(F);
                    WhyNot = Why;
                    return std::nullopt;
                  });
}

/// Records the kernel it is given, printed, in \p Seen and does not apply.
PassInfo recordPass(const std::string &Name, std::string &Seen) {
  return fakePass(Name,
                  [&Seen](Function &F, const PassContext &, std::string &WhyNot)
                      -> llvm::Expected<std::optional<AppliedPass>> {
                    Seen = printFunctionDebug(F);
                    WhyNot = "only looked";
                    return std::nullopt;
                  });
}

class Pipeline : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // As the driver does: a pass's crash costs that pass, not the process.
    llvm::CrashRecoveryContext::Enable();
  }

  void SetUp() override {
    M = parseText(Saxpy);
    ASSERT_TRUE(M);
    K = M->find("k");
    ASSERT_TRUE(K);
    Naive = printFunctionDebug(*K);
  }

  /// A request over kernel k with \p Passes looked up in Registry.
  PipelineRequest request(std::vector<std::string> Passes,
                          MemoryVariant V = MemoryVariant::Global) {
    PipelineRequest Req(*K, PassContext{MD, V}, Diagnostics);
    Req.Passes = std::move(Passes);
    Req.File = "x.cu";
    Req.Registry = &Registry;
    return Req;
  }

  /// runPipeline, which must not fail.
  PipelineResult run(const PipelineRequest &Req) {
    auto R = runPipeline(Req);
    if (!R) {
      ADD_FAILURE() << llvm::toString(R.takeError());
      return PipelineResult();
    }
    EXPECT_TRUE(R->Kernel);
    return std::move(*R);
  }

  /// k with its last statement repeated, printed: what repeatPass makes.
  std::string repeated() const {
    std::unique_ptr<Function> F = K->clone();
    repeatLastStatement(*F);
    return printFunctionDebug(*F);
  }

  static std::vector<std::string> names(const std::vector<AppliedPass> &Ps) {
    std::vector<std::string> Out;
    for (const AppliedPass &P : Ps)
      Out.push_back(P.Name);
    return Out;
  }

  MachineDescription MD;
  std::unique_ptr<Module> M;
  const Function *K = nullptr;
  std::string Naive; ///< k, printed
  std::map<std::string, PassInfo> Registry;
  std::string Messages;
  llvm::raw_string_ostream Diagnostics{Messages};
};

TEST_F(Pipeline, CrashingPassIsSkippedAndTheNextStartsBeforeIt) {
  std::string Seen;
  Registry["repeat"] = repeatPass("repeat");
  Registry["crash"] =
      fakePass("crash",
               [](Function &F, const PassContext &,
                  std::string &) -> llvm::Expected<std::optional<AppliedPass>> {
                 F.Body->Body.clear(); // half done, then a bug of ours
                 std::abort();
               });
  Registry["record"] = recordPass("record", Seen);
  PipelineResult R = run(request({"repeat", "crash", "record"}));
  // The pass after the crash saw the kernel as "repeat" left it.
  EXPECT_EQ(Seen, repeated());
  EXPECT_EQ(printFunctionDebug(*R.Kernel), repeated());
  EXPECT_EQ(R.Status, "optimized");
  EXPECT_EQ(names(R.Passes), std::vector<std::string>{"repeat"});
  EXPECT_TRUE(R.InternalError);
  ASSERT_EQ(R.Skipped.size(), 2u);
  EXPECT_EQ(R.Skipped[0],
            SkippedPass("crash", "internal error (a gpumerge bug; the pass "
                                 "was skipped): it crashed"));
  EXPECT_EQ(R.Skipped[1], SkippedPass("record", "only looked"));
  EXPECT_EQ(Diagnostics.str(),
            "x.cu:2: warning: pass 'crash' failed on kernel 'k' (global "
            "variant), a gpumerge bug: it crashed; the pass is skipped for "
            "this kernel\n");
}

TEST_F(Pipeline, FailingPassIsSkippedAndTheNextStartsBeforeIt) {
  std::string Seen;
  Registry["fail"] =
      fakePass("fail",
               [](Function &F, const PassContext &,
                  std::string &) -> llvm::Expected<std::optional<AppliedPass>> {
                 repeatLastStatement(F);
                 return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                "no tile fits");
               });
  Registry["record"] = recordPass("record", Seen);
  PipelineResult R = run(request({"fail", "record"}, MemoryVariant::Texture));
  EXPECT_EQ(Seen, Naive);
  EXPECT_EQ(printFunctionDebug(*R.Kernel), Naive);
  EXPECT_EQ(R.Status, "passed-through");
  EXPECT_TRUE(R.Passes.empty());
  EXPECT_TRUE(R.InternalError);
  ASSERT_FALSE(R.Skipped.empty());
  EXPECT_EQ(R.Skipped[0],
            SkippedPass("fail", "internal error (a gpumerge bug; the pass "
                                "was skipped): no tile fits"));
  EXPECT_EQ(R.Reason, "no pass applied (fail: internal error (a gpumerge "
                      "bug; the pass was skipped): no tile fits; record: "
                      "only looked)");
  EXPECT_NE(Diagnostics.str().find("pass 'fail' failed on kernel 'k' "
                                   "(texture variant), a gpumerge bug: no "
                                   "tile fits"),
            std::string::npos)
      << Diagnostics.str();
}

TEST_F(Pipeline, DebugFailHooksDropAPassThatWouldApply) {
  Registry["repeat"] = repeatPass("repeat");
  for (const char *Hook : {"pass-crash=", "pass-error=", "pass-malformed="}) {
    Messages.clear();
    PipelineRequest Req = request({"repeat"});
    Req.DebugFail = std::string(Hook) + "repeat";
    PipelineResult R = run(Req);
    EXPECT_EQ(printFunctionDebug(*R.Kernel), Naive) << Hook;
    EXPECT_TRUE(R.Passes.empty()) << Hook;
    EXPECT_TRUE(R.InternalError) << Hook;
    ASSERT_EQ(R.Skipped.size(), 1u) << Hook;
    EXPECT_EQ(R.Skipped[0].first, "repeat");
    EXPECT_NE(Diagnostics.str().find("warning: pass 'repeat' failed"),
              std::string::npos)
        << Hook;
  }
  // Each hook names its pass: another one's is not dropped.
  PipelineRequest Req = request({"repeat"});
  Req.DebugFail = "pass-crash=coalesce";
  PipelineResult R = run(Req);
  EXPECT_EQ(names(R.Passes), std::vector<std::string>{"repeat"});
  EXPECT_FALSE(R.InternalError);
}

TEST_F(Pipeline, MalformedKirIsSkipped) {
  Registry["undeclared"] = fakePass(
      "undeclared",
      [](Function &F, const PassContext &,
         std::string &) -> llvm::Expected<std::optional<AppliedPass>> {
        F.Body->Body.push_back(std::make_unique<ExprStmt>(var("nowhere")));
        return AppliedPass{"undeclared", {}};
      });
  PipelineResult R = run(request({"undeclared"}));
  EXPECT_EQ(printFunctionDebug(*R.Kernel), Naive);
  EXPECT_TRUE(R.InternalError);
  ASSERT_EQ(R.Skipped.size(), 1u);
  EXPECT_EQ(R.Skipped[0].second.rfind("internal error (a gpumerge bug; the "
                                      "pass was skipped): it produced "
                                      "malformed KIR: ",
                                      0),
            0u)
      << R.Skipped[0].second;
}

TEST_F(Pipeline, PassThatDoesNotApplyLeavesTheKernelAndSaysWhy) {
  Registry["decline"] = declinePass("decline", "nothing to coalesce");
  PipelineResult R = run(request({"decline"}));
  // Its copy had the last statement repeated; the kernel has not.
  EXPECT_EQ(printFunctionDebug(*R.Kernel), Naive);
  EXPECT_NE(R.Kernel.get(), K);
  EXPECT_EQ(R.Status, "passed-through");
  EXPECT_TRUE(R.Passes.empty());
  EXPECT_FALSE(R.InternalError);
  EXPECT_EQ(R.Skipped, std::vector<SkippedPass>{
                           SkippedPass("decline", "nothing to coalesce")});
  EXPECT_EQ(R.Reason, "no pass applied (decline: nothing to coalesce)");
  EXPECT_TRUE(Diagnostics.str().empty()) << Diagnostics.str();
}

TEST_F(Pipeline, TextureVariantWithoutTexturesIsWrittenUnchanged) {
  Registry["repeat"] = repeatPass("repeat");
  Registry["texture-memory"] =
      declinePass("texture-memory", "no array is read-only");
  PipelineResult R =
      run(request({"repeat", "texture-memory"}, MemoryVariant::Texture));
  EXPECT_EQ(printFunctionDebug(*R.Kernel), Naive);
  EXPECT_EQ(R.Status, "passed-through");
  EXPECT_TRUE(R.Passes.empty());
  EXPECT_FALSE(R.InternalError);
  EXPECT_EQ(R.Reason, "texture-memory: no array is read-only; the texture "
                      "variant is written unchanged");
  // The global variant keeps what the same passes made.
  PipelineResult G = run(request({"repeat", "texture-memory"}));
  EXPECT_EQ(G.Status, "optimized");
  EXPECT_EQ(printFunctionDebug(*G.Kernel), repeated());
  EXPECT_EQ(names(G.Passes), std::vector<std::string>{"repeat"});
}

TEST_F(Pipeline, ReasonsOfAnEmptyPipeline) {
  PipelineResult R = run(request({}));
  EXPECT_EQ(R.Reason, "the global pipeline has no optimization pass "
                      "implemented yet; the kernel is written back "
                      "unchanged");
  PipelineRequest Given = request({});
  Given.Ctx.PipelineGiven = true;
  R = run(Given);
  EXPECT_EQ(R.Reason, "no passes requested (--passes=none): the kernel went "
                      "through KIR unchanged");
}

TEST_F(Pipeline, NotesFromBeforeComeFirst) {
  Registry["decline"] = declinePass("decline", "nothing to do");
  PipelineRequest Req = request({"decline"});
  Req.SkippedBefore.push_back({"grid-stride", "gpumerge crashed"});
  Req.InternalErrorBefore = true;
  PipelineResult R = run(Req);
  EXPECT_TRUE(R.InternalError);
  EXPECT_EQ(R.Reason, "no pass applied (grid-stride: gpumerge crashed; "
                      "decline: nothing to do)");
}

TEST_F(Pipeline, PositionHelperSkipsPassesThatChangeTheLaunch) {
  std::unique_ptr<Function> F = K->clone();
  F->PositionHelper = "lane";
  Registry["repeat"] = repeatPass("repeat");
  Registry["keeps"] = repeatPass("keeps");
  Registry["keeps"].KeepsThreadBuiltins = true;
  PipelineRequest Req(*F, PassContext{MD, MemoryVariant::Global}, Diagnostics);
  Req.Passes = {"repeat", "keeps"};
  Req.Registry = &Registry;
  PipelineResult R = run(Req);
  EXPECT_EQ(names(R.Passes), std::vector<std::string>{"keeps"});
  ASSERT_EQ(R.Skipped.size(), 1u);
  EXPECT_EQ(R.Skipped[0].first, "repeat");
  EXPECT_NE(R.Skipped[0].second.find("the helper 'lane' reads thread or "
                                     "block built-ins"),
            std::string::npos);
}

TEST_F(Pipeline, StepsNameEachPassButADroppedOne) {
  Registry["repeat"] = repeatPass("repeat");
  Registry["decline"] = declinePass("decline", "no");
  Registry["fail"] = fakePass(
      "fail",
      [](Function &, const PassContext &,
         std::string &) -> llvm::Expected<std::optional<AppliedPass>> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "bug");
      });
  std::vector<std::string> Steps;
  PipelineRequest Req = request({"repeat", "fail", "decline"});
  Req.WriteStep = [&](const Function &F, unsigned Step,
                      const std::string &Pass) {
    Steps.push_back(std::to_string(Step) + "-" + Pass + ":" +
                    std::to_string(F.Body->Body.size()));
    return llvm::Error::success();
  };
  run(Req);
  // k has two statements; repeat makes three, and decline keeps them.
  EXPECT_EQ(Steps, (std::vector<std::string>{"0-input:2", "1-repeat:3",
                                             "2-decline:3"}));
  // A step that cannot be written stops the pipeline with its error.
  Req.WriteStep = [](const Function &, unsigned Step, const std::string &) {
    return Step == 1 ? llvm::createStringError(llvm::inconvertibleErrorCode(),
                                               "disk full")
                     : llvm::Error::success();
  };
  auto Failed = runPipeline(Req);
  ASSERT_FALSE(Failed);
  EXPECT_EQ(llvm::toString(Failed.takeError()), "disk full");
}

TEST_F(Pipeline, ForcedMergeTheTargetCannotRunIsTheUsersError) {
  Registry["block-merge"] = fakePass(
      "block-merge",
      [](Function &, const PassContext &,
         std::string &) -> llvm::Expected<std::optional<AppliedPass>> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "block-y=64 exceeds the block limit");
      });
  PipelineRequest Req = request({"block-merge"});
  Req.Ctx.Merge.BlockY = 64;
  auto R = runPipeline(Req);
  ASSERT_FALSE(R);
  EXPECT_EQ(llvm::toString(R.takeError()),
            "block-y=64 exceeds the block limit");
  // Unforced, the same failure is a bug of the pass: skipped.
  PipelineResult Unforced = run(request({"block-merge"}));
  EXPECT_TRUE(Unforced.InternalError);
}

TEST_F(Pipeline, UnchangedGridStrideKernelIsTheInputAgain) {
  auto GS = parseText(R"(
__global__ void g(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}
)");
  ASSERT_TRUE(GS);
  const Function *G = GS->find("g");
  ASSERT_TRUE(G);
  std::string WhyNot;
  std::unique_ptr<Function> Guarded = guardGridStride(*G, WhyNot);
  ASSERT_TRUE(Guarded) << WhyNot;
  std::string Seen;
  Registry["record"] = recordPass("record", Seen);
  PipelineRequest Req(*G, PassContext{MD, MemoryVariant::Global}, Diagnostics);
  Req.Start = Guarded.get();
  Req.Passes = {"record"};
  Req.Registry = &Registry;
  PipelineResult R = run(Req);
  // The passes saw the guarded form; the output keeps the loop.
  EXPECT_EQ(Seen, printFunctionDebug(*Guarded));
  EXPECT_EQ(Seen.find("for ("), std::string::npos) << Seen;
  EXPECT_EQ(printFunctionDebug(*R.Kernel), printFunctionDebug(*G));
}

TEST(PipelinePasses, DefaultLessDisabledOrAsGiven) {
  MachineDescription MD = shippedTarget("gtx480");
  std::vector<std::string> Default = defaultPipeline(MemoryVariant::Global, MD);
  ASSERT_FALSE(Default.empty());
  auto All = pipelinePasses(std::nullopt, {}, MemoryVariant::Global, MD);
  ASSERT_TRUE(bool(All)) << llvm::toString(All.takeError());
  EXPECT_EQ(*All, Default);
  std::vector<std::string> Disabled = {Default.front()};
  auto Less = pipelinePasses(std::nullopt, Disabled, MemoryVariant::Global, MD);
  ASSERT_TRUE(bool(Less)) << llvm::toString(Less.takeError());
  EXPECT_EQ(Less->size(), Default.size() - 1);
  EXPECT_FALSE(llvm::is_contained(*Less, Default.front()));
  // A given pipeline is taken as it is: --disable-passes does not apply.
  auto Given = pipelinePasses(std::string("vectorize,coalesce"), Disabled,
                              MemoryVariant::Texture, MD);
  ASSERT_TRUE(bool(Given)) << llvm::toString(Given.takeError());
  EXPECT_EQ(*Given, (std::vector<std::string>{"vectorize", "coalesce"}));
  auto None =
      pipelinePasses(std::string("none"), {}, MemoryVariant::Global, MD);
  ASSERT_TRUE(bool(None)) << llvm::toString(None.takeError());
  EXPECT_TRUE(None->empty());
  auto Bad = pipelinePasses(std::string("coalesce,no-such-pass"), {},
                            MemoryVariant::Global, MD);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("no-such-pass"),
            std::string::npos);
}

TEST(PipelinePasses, TextureFollowsGlobalFromSm35) {
  // sm_35 and later: the global pipeline, then texture-memory.
  for (const char *Name : {"h100", "a100", "v100"}) {
    MachineDescription MD = shippedTarget(Name);
    EXPECT_TRUE(textureFollowsGlobal(MD)) << Name;
    std::vector<std::string> Want = defaultPipeline(MemoryVariant::Global, MD);
    Want.push_back("texture-memory");
    EXPECT_EQ(defaultPipeline(MemoryVariant::Texture, MD), Want) << Name;
    EXPECT_FALSE((PassContext{MD, MemoryVariant::Global}.paperTexture()));
    PassContext Texture{MD, MemoryVariant::Texture};
    EXPECT_FALSE(Texture.paperTexture()) << Name;
    // A pipeline naming texture-block-shape asks for the paper's variant.
    Texture.PaperTextureAsked = true;
    EXPECT_TRUE(Texture.paperTexture()) << Name;
  }
  // Fermi, GT200, AMD: the paper's texture variant, no shared memory.
  for (const char *Name : {"gtx480", "gtx285", "hd5870"}) {
    MachineDescription MD = shippedTarget(Name);
    EXPECT_FALSE(textureFollowsGlobal(MD)) << Name;
    std::vector<std::string> Texture =
        defaultPipeline(MemoryVariant::Texture, MD);
    EXPECT_TRUE(llvm::is_contained(Texture, "texture-block-shape")) << Name;
    EXPECT_FALSE(llvm::is_contained(Texture, "coalesce")) << Name;
    EXPECT_TRUE((PassContext{MD, MemoryVariant::Texture}.paperTexture()));
  }
}

const char *GridStrideAndBarrier = R"(
__global__ void strided(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}
__global__ void twoSteps(int n, float *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = a[i] + 1.0f;
  gpumerge_global_sync();
  if (i < n)
    a[i] = a[i] * 2.0f;
}
)";

TEST(InputRewrites, ReadGridStrideLoopsAndSplitGlobalBarriers) {
  auto M = parseText(GridStrideAndBarrier);
  std::string Diagnostics;
  llvm::raw_string_ostream OS(Diagnostics);
  InputReading R = rewriteInput(*M, {}, "t.cu", "", OS);
  const Function *Strided = M->find("strided");
  ASSERT_TRUE(Strided);
  // The passes start from the loop read as a guard; the module keeps it.
  EXPECT_NE(&R.startOf(*Strided), Strided);
  EXPECT_EQ(R.startOf(*Strided).GridStrideLine, 3u);
  EXPECT_EQ(Strided->GridStrideLine, 0u);
  // The kernel with a global barrier became phase kernels.
  ASSERT_EQ(M->Phased.size(), 1u);
  EXPECT_EQ(M->Phased[0].Name, "twoSteps");
  EXPECT_EQ(M->find("twoSteps"), nullptr);
  EXPECT_TRUE(Diagnostics.empty());
}

TEST(InputRewrites, DisabledOnesLeaveTheKernelsAsWritten) {
  auto M = parseText(GridStrideAndBarrier);
  std::string Diagnostics;
  llvm::raw_string_ostream OS(Diagnostics);
  InputReading R =
      rewriteInput(*M, {"grid-stride", "global-barrier"}, "t.cu", "", OS);
  const Function *Strided = M->find("strided");
  ASSERT_TRUE(Strided);
  EXPECT_EQ(&R.startOf(*Strided), Strided);
  // No pass knows a global barrier: that kernel is passed through.
  EXPECT_TRUE(M->Phased.empty());
  EXPECT_EQ(M->find("twoSteps"), nullptr);
  ASSERT_EQ(M->PassedThrough.size(), 1u);
  EXPECT_EQ(M->PassedThrough[0].Kernel, "twoSteps");
  EXPECT_TRUE(isInputRewrite("grid-stride"));
  EXPECT_FALSE(isInputRewrite("coalesce"));
}

TEST(InputRewrites, ACrashReadingALoopCostsThatReadingAlone) {
  llvm::CrashRecoveryContext::Enable();
  auto M = parseText(GridStrideAndBarrier);
  std::string Diagnostics;
  llvm::raw_string_ostream OS(Diagnostics);
  InputReading R =
      rewriteInput(*M, {}, "t.cu", "grid-stride-crash=strided", OS);
  const Function *Strided = M->find("strided");
  ASSERT_TRUE(Strided);
  EXPECT_EQ(&R.startOf(*Strided), Strided);
  EXPECT_EQ(R.Crashed.count("strided"), 1u);
  EXPECT_NE(OS.str().find("t.cu:2: warning: reading the grid-stride loop of "
                          "kernel 'strided' crashed"),
            std::string::npos)
      << OS.str();
}

} // namespace

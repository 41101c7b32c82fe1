//===- CoalescingTest.cpp - §3.2's coalescing check on GT200 and Hopper ---===//
//
// The paper's §3.2 examples as kernels, checked against the GTX 285 (16-thread
// half-warp, 64-byte segments, the paper's rule) and the H100 (whole warp,
// 32-byte sectors): a[idy*w + i] is a same-address access (not coalesced on
// GT200, a broadcast on Hopper), b[i*w + idx] is coalesced, b[idx + i] is not
// (unaligned base for i = 1; five sectors instead of four), a row per thread
// (mv) is not, and so on.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Coalescing.h"
#include "Frontend/Frontend.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

using namespace gpumerge;

namespace gpumerge {
/// Readable failure messages: "true" instead of bytes.
void PrintTo(Tristate T, std::ostream *OS) { *OS << tristateName(T); }
} // namespace gpumerge

namespace {

class Coalescing : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    GTX285 = load("gtx285");
    H100 = load("h100");
  }
  static void TearDownTestSuite() {
    delete GTX285;
    delete H100;
    GTX285 = H100 = nullptr;
  }

  static MachineDescription *load(const char *Name) {
    auto MD = loadTarget(Name, defaultTargetsDir());
    if (!MD) {
      ADD_FAILURE() << "cannot load " << Name << ": "
                    << llvm::toString(MD.takeError());
      return nullptr;
    }
    return new MachineDescription(*MD);
  }

  void SetUp() override {
    ASSERT_NE(GTX285, nullptr);
    ASSERT_NE(H100, nullptr);
  }

  /// Parses a kernel whose body is \p Body, with parameters a, b (const
  /// float), c (float), d (const double), w, n and locals x = idx, y = idy,
  /// and collects its accesses.
  void kernel(const std::string &Body) {
    std::string Src =
        "__global__ void k(const float *a, const float *b, float *c,\n"
        "                  const double *d, int w, int n) {\n"
        "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n" +
        Body + "\n}\n";
    auto M = parseSource(Src, "x.cu", {});
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    Mod = std::move(*M);
    ASSERT_EQ(Mod->kernels().size(), 1u)
        << (Mod->PassedThrough.empty() ? "" : Mod->PassedThrough[0].Construct);
    Accesses = collectAccesses(*Mod->kernels()[0]);
  }

  /// The one access to \p Array (fails the test when there are several).
  const Access &access(const std::string &Array) {
    const Access *Found = nullptr;
    unsigned N = 0;
    for (const Access &A : Accesses)
      if (A.Array == Array) {
        Found = &A;
        ++N;
      }
    EXPECT_EQ(N, 1u) << "accesses to " << Array;
    if (!Found) {
      static const Access None;
      return None;
    }
    return *Found;
  }

  CoalescingResult check(const std::string &Array,
                         const MachineDescription &MD) {
    return checkCoalescing(access(Array), MD);
  }

  static MachineDescription *GTX285, *H100;
  std::unique_ptr<Module> Mod;
  std::vector<Access> Accesses;
};

MachineDescription *Coalescing::GTX285 = nullptr;
MachineDescription *Coalescing::H100 = nullptr;

std::string describe(const CoalescingResult &R) {
  return std::string(tristateName(R.Coalesced)) + " (" + R.Reason +
         "), transactions " + std::to_string(R.Transactions) + " of at least " +
         std::to_string(R.MinTransactions);
}

TEST_F(Coalescing, TargetsAreTheExpectedKinds) {
  // What the rules below rely on: GT200 coalesces per half-warp in 64-byte
  // segments, Hopper per warp in 32-byte sectors.
  EXPECT_LT(GTX285->CoalescedThread, GTX285->ThreadInWarp);
  EXPECT_EQ(GTX285->CoalescedThread, 16u);
  EXPECT_EQ(GTX285->SegmentBytes, 64u);
  EXPECT_EQ(H100->CoalescedThread, H100->ThreadInWarp);
  EXPECT_EQ(H100->SectorBytes, 32u);
}

// §3.2: a[idy][i] — every thread of the half-warp reads the same element.
TEST_F(Coalescing, SameAddressForAllThreads) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int i = 0; i < w; i++)\n"
                                 "    s += a[y * w + i];\n"
                                 "  c[y * w + x] = s;"));
  EXPECT_EQ(access("a").Kind, IndexKind::Loop);

  CoalescingResult G = check("a", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::False) << describe(G);
  EXPECT_NE(G.Reason.find("same"), std::string::npos) << G.Reason;

  // Fermi and later: a broadcast, one sector.
  CoalescingResult H = check("a", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
  EXPECT_EQ(H.Transactions, 1u);
  EXPECT_EQ(H.MinTransactions, 1u);
}

// §3.2: b[i][idx] — coalesced, rows assumed segment-aligned.
TEST_F(Coalescing, LoopRowAndIdxColumn) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int i = 0; i < w; i++)\n"
                                 "    s += b[i * w + x];\n"
                                 "  c[y * w + x] = s;"));
  CoalescingResult G = check("b", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::True) << describe(G);
  EXPECT_EQ(G.Transactions, 1u);
  EXPECT_EQ(G.MinTransactions, 1u);
  EXPECT_TRUE(G.Reason.empty()) << G.Reason;

  CoalescingResult H = check("b", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
  EXPECT_EQ(H.Transactions, 4u); // 32 floats = 128 bytes = 4 sectors
  EXPECT_EQ(H.MinTransactions, 4u);
}

// §3.2: b[idx + i] — the base is not aligned for i = 1.
TEST_F(Coalescing, LoopIteratorShiftsTheBase) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int i = 0; i < w; i++)\n"
                                 "    s += b[x + i];\n"
                                 "  c[x] = s;"));
  CoalescingResult G = check("b", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::False) << describe(G);
  EXPECT_EQ(G.Transactions, 2u) << describe(G);
  EXPECT_EQ(G.MinTransactions, 1u);
  EXPECT_NE(G.Reason.find("aligned"), std::string::npos) << G.Reason;

  CoalescingResult H = check("b", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::False) << describe(H);
  EXPECT_EQ(H.Transactions, 5u) << describe(H);
  EXPECT_EQ(H.MinTransactions, 4u) << describe(H);
  EXPECT_NE(H.Reason.find("5"), std::string::npos) << H.Reason;
}

// The same access in a loop stepping by a whole segment: every base aligned.
TEST_F(Coalescing, LoopSteppingBySegmentKeepsAlignment) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int i = 0; i < w; i += 16)\n"
                                 "    s += b[x + i];\n"
                                 "  c[x] = s;"));
  CoalescingResult G = check("b", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::True) << describe(G);
  CoalescingResult H = check("b", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
  EXPECT_EQ(H.Transactions, 4u);
}

// A loop starting at 1 misaligns every iteration.
TEST_F(Coalescing, LoopStartCounts) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int i = 1; i < w; i += 16)\n"
                                 "    s += b[x + i];\n"
                                 "  c[x] = s;"));
  CoalescingResult G = check("b", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::False) << describe(G);
  CoalescingResult H = check("b", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::False) << describe(H);
  EXPECT_EQ(H.Transactions, 5u);
}

// mv: a row per thread, a[idx*w + i].
TEST_F(Coalescing, RowPerThreadIsNotCoalesced) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int i = 0; i < w; i++)\n"
                                 "    s += a[x * w + i] * b[i];\n"
                                 "  c[x] = s;"));
  for (const MachineDescription *MD : {GTX285, H100}) {
    CoalescingResult R = check("a", *MD);
    EXPECT_EQ(R.Coalesced, Tristate::False) << MD->Name << ": " << describe(R);
    EXPECT_NE(R.Reason.find("w"), std::string::npos)
        << MD->Name << ": " << R.Reason;
  }
  // x[j] of mv: the same element for every thread.
  EXPECT_EQ(check("b", *GTX285).Coalesced, Tristate::False);
  EXPECT_EQ(check("b", *H100).Coalesced, Tristate::True);
  // y[i] of mv: one element per thread.
  EXPECT_EQ(check("c", *GTX285).Coalesced, Tristate::True);
  EXPECT_EQ(check("c", *H100).Coalesced, Tristate::True);
}

// A true 2-D array indexed [idx][...]: idx in the row index (§3.2).
TEST_F(Coalescing, IdxInTheRowOfA2DArray) {
  auto M = parseSource(R"(
__global__ void k(const float (*a)[1024], float (*c)[1024], int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += a[x][i];
  c[y][x] = s;
}
)",
                       "x.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ((*M)->kernels().size(), 1u);
  auto All = collectAccesses(*(*M)->kernels()[0]);
  ASSERT_EQ(All.size(), 2u);
  for (const MachineDescription *MD : {GTX285, H100}) {
    CoalescingResult A = checkCoalescing(All[0], *MD);
    EXPECT_EQ(A.Coalesced, Tristate::False) << MD->Name << ": " << describe(A);
    EXPECT_NE(A.Reason.find("1024"), std::string::npos) << A.Reason;
    CoalescingResult C = checkCoalescing(All[1], *MD);
    EXPECT_EQ(C.Coalesced, Tristate::True) << MD->Name << ": " << describe(C);
  }
}

TEST_F(Coalescing, OneElementPerThreadIsCoalesced) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[y * w + x] = 0.0f;"));
  for (const MachineDescription *MD : {GTX285, H100}) {
    CoalescingResult R = check("c", *MD);
    EXPECT_EQ(R.Coalesced, Tristate::True) << MD->Name << ": " << describe(R);
    EXPECT_EQ(R.Transactions, R.MinTransactions) << MD->Name;
  }
}

TEST_F(Coalescing, StrideTwoIsNotCoalesced) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[2 * x] = 0.0f;"));
  CoalescingResult G = check("c", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::False) << describe(G);
  EXPECT_NE(G.Reason.find("2"), std::string::npos) << G.Reason;
  CoalescingResult H = check("c", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::False) << describe(H);
  // 32 threads 8 bytes apart: 256 bytes, 8 sectors, for 128 useful bytes.
  EXPECT_EQ(H.Transactions, 8u) << describe(H);
}

// Constant offsets: 8 floats = 32 bytes is sector- but not segment-aligned.
TEST_F(Coalescing, ConstantOffsetAlignment) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[x + 8] = a[x + 16] + b[x + 1];"));
  EXPECT_EQ(check("c", *GTX285).Coalesced, Tristate::False);
  EXPECT_EQ(check("c", *H100).Coalesced, Tristate::True);
  EXPECT_EQ(check("a", *GTX285).Coalesced, Tristate::True);
  EXPECT_EQ(check("a", *H100).Coalesced, Tristate::True);
  EXPECT_EQ(check("b", *GTX285).Coalesced, Tristate::False);
  CoalescingResult H = check("b", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::False) << describe(H);
  EXPECT_EQ(H.Transactions, 5u);
}

// A constant row stride in Y: 1000 floats = 4000 bytes, a multiple of a
// 32-byte sector but not of a 64-byte segment.
TEST_F(Coalescing, ConstantRowStrideInY) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[y * 1024 + x] = a[y * 1000 + x];"));
  EXPECT_EQ(check("c", *GTX285).Coalesced, Tristate::True);
  EXPECT_EQ(check("c", *H100).Coalesced, Tristate::True);
  CoalescingResult G = check("a", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::False) << describe(G);
  CoalescingResult H = check("a", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
}

TEST_F(Coalescing, UnresolvedIndexIsUnknown) {
  ASSERT_NO_FATAL_FAILURE(kernel("  int j = x;\n"
                                 "  float s = 0.0f;\n"
                                 "  for (int i = 0; i < n; i++) {\n"
                                 "    s += a[j];\n"
                                 "    j += w;\n"
                                 "  }\n"
                                 "  c[x] = s;"));
  ASSERT_EQ(access("a").Kind, IndexKind::Unresolved);
  for (const MachineDescription *MD : {GTX285, H100}) {
    CoalescingResult R = check("a", *MD);
    EXPECT_EQ(R.Coalesced, Tristate::Unknown)
        << MD->Name << ": " << describe(R);
    EXPECT_FALSE(R.Reason.empty());
  }
}

TEST_F(Coalescing, DoubleElements) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[x] = d[x];"));
  EXPECT_EQ(access("d").ElementBytes, 8u);
  // 16 doubles = 128 bytes = two 64-byte segments, both fully used.
  CoalescingResult G = check("d", *GTX285);
  EXPECT_EQ(G.Coalesced, Tristate::True) << describe(G);
  EXPECT_EQ(G.Transactions, 2u);
  EXPECT_EQ(G.MinTransactions, 2u);
  // 32 doubles = 256 bytes = 8 sectors.
  CoalescingResult H = check("d", *H100);
  EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
  EXPECT_EQ(H.Transactions, 8u);
  EXPECT_EQ(H.MinTransactions, 8u);
}

TEST_F(Coalescing, DoubleElementsHalfSegmentOffset) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[x] = d[x + 4];"));
  // 4 doubles = 32 bytes: sector-aligned, not segment-aligned.
  EXPECT_EQ(check("d", *GTX285).Coalesced, Tristate::False);
  EXPECT_EQ(check("d", *H100).Coalesced, Tristate::True);
}

TEST_F(Coalescing, ThreadIdInBlockCountsLikeIdx) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[threadIdx.x] = a[2 * threadIdx.x];"));
  EXPECT_EQ(check("c", *GTX285).Coalesced, Tristate::True);
  EXPECT_EQ(check("c", *H100).Coalesced, Tristate::True);
  EXPECT_EQ(check("a", *GTX285).Coalesced, Tristate::False);
  EXPECT_EQ(check("a", *H100).Coalesced, Tristate::False);
}

// Reversed order within the warp: c[n - 1 - idx] over an aligned n. The warp
// touches exactly the 4 sectors its 128 bytes need (Coalescing.h: "count the
// 32-byte sectors the warp touches; coalesced when that is the minimum").
TEST_F(Coalescing, ReversedWarpAccessOnHopper) {
  ASSERT_NO_FATAL_FAILURE(kernel("  c[n - 1 - x] = 0.0f;"));
  CoalescingResult H = check("c", *H100);
  EXPECT_EQ(H.Transactions, 4u) << describe(H);
  EXPECT_EQ(H.MinTransactions, 4u) << describe(H);
  EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
}

// for (j = x; j < n; j += 1024) a[j]: thread t reads a[t + 1024k], one float
// per thread, consecutive and aligned: coalesced. "All threads of a half-warp
// access the same element" is wrong; Unknown would be honest.
TEST_F(Coalescing, LoopStartingAtThreadPosition) {
  ASSERT_NO_FATAL_FAILURE(kernel("  float s = 0.0f;\n"
                                 "  for (int j = x; j < n; j += 1024)\n"
                                 "    s += a[j];\n"
                                 "  c[x] = s;"));
  CoalescingResult G = check("a", *GTX285);
  EXPECT_NE(G.Coalesced, Tristate::False) << describe(G);
  CoalescingResult H = check("a", *H100);
  if (H.Coalesced != Tristate::Unknown) {
    EXPECT_EQ(H.Coalesced, Tristate::True) << describe(H);
    // 32 distinct floats cannot come in one sector.
    EXPECT_EQ(H.Transactions, 4u) << describe(H);
  }
}

// The paper's own mm (Fig. 2 dialect, true 2-D arrays of 2048 floats):
// a[idy][i] is not coalesced on GT200, b[i][idx] and c[idy][idx] are.
TEST_F(Coalescing, PaperDialectMatrixMultiplication) {
  auto M = parseFile(
      std::string(GPUMERGE_SOURCE_DIR) + "/kernels/mm_paper_dialect.cu", {});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ((*M)->kernels().size(), 1u);
  auto All = collectAccesses(*(*M)->kernels()[0]);
  ASSERT_EQ(All.size(), 3u);
  EXPECT_EQ(All[0].Array, "a");
  EXPECT_EQ(All[1].Array, "b");
  EXPECT_EQ(All[2].Array, "c");
  EXPECT_EQ(checkCoalescing(All[0], *GTX285).Coalesced, Tristate::False);
  EXPECT_EQ(checkCoalescing(All[1], *GTX285).Coalesced, Tristate::True);
  EXPECT_EQ(checkCoalescing(All[2], *GTX285).Coalesced, Tristate::True);
  EXPECT_EQ(checkCoalescing(All[0], *H100).Coalesced, Tristate::True);
  EXPECT_EQ(checkCoalescing(All[1], *H100).Coalesced, Tristate::True);
  EXPECT_EQ(checkCoalescing(All[2], *H100).Coalesced, Tristate::True);
}

TEST(CoalescingNames, TristateNames) {
  EXPECT_STREQ(tristateName(Tristate::True), "true");
  EXPECT_STREQ(tristateName(Tristate::False), "false");
  EXPECT_STREQ(tristateName(Tristate::Unknown), "unknown");
}

} // namespace

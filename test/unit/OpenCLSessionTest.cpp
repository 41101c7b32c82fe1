//===- OpenCLSessionTest.cpp - Running OpenCL kernels through PoCL --------===//
//
// Runs small kernels on the session's device (PoCL on the CPU here) and checks
// every element against a CPU computation: odd sizes with guards, 2-D ranges
// with explicit work-groups, scalar arguments, two launches in sequence (a
// kernel split at a global barrier), __local memory, and the errors --verify
// relies on (build log, bad ranges, wrong argument counts).
//
//===----------------------------------------------------------------------===//
#include "Runtime/OpenCLSession.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

using namespace gpumerge;

namespace {

template <typename T>
std::vector<std::uint8_t> toBytes(const std::vector<T> &V) {
  std::vector<std::uint8_t> B(V.size() * sizeof(T));
  if (!B.empty())
    std::memcpy(B.data(), V.data(), B.size());
  return B;
}

template <typename T>
std::vector<T> fromBytes(const std::vector<std::uint8_t> &B) {
  std::vector<T> V(B.size() / sizeof(T));
  if (!V.empty())
    std::memcpy(V.data(), B.data(), V.size() * sizeof(T));
  return V;
}

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

/// One session for the whole suite: opening PoCL once keeps the suite quick.
class OpenCLSessionTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto SOrErr = OpenCLSession::create();
    if (!SOrErr) {
      CreateError = llvm::toString(SOrErr.takeError());
      return;
    }
    Session = std::move(*SOrErr);
  }
  static void TearDownTestSuite() { Session.reset(); }

  void SetUp() override {
    // Only a machine without any OpenCL platform skips; anything else failing
    // in create() is a bug.
    if (!Session && CreateError.find("no OpenCL platform found") == 0)
      GTEST_SKIP() << CreateError;
    ASSERT_TRUE(Session) << CreateError;
  }

  unsigned build(const std::string &Source, const std::string &Options = "") {
    auto ProgOrErr = Session->buildProgram(Source, Options);
    EXPECT_TRUE(bool(ProgOrErr)) << llvm::toString(ProgOrErr.takeError());
    return ProgOrErr ? *ProgOrErr : ~0u;
  }

  template <typename T> unsigned buffer(const std::vector<T> &Init) {
    auto BufOrErr = Session->createBuffer(toBytes(Init));
    EXPECT_TRUE(bool(BufOrErr)) << llvm::toString(BufOrErr.takeError());
    return BufOrErr ? *BufOrErr : ~0u;
  }

  template <typename T> std::vector<T> read(unsigned Buf) {
    auto BytesOrErr = Session->readBuffer(Buf);
    EXPECT_TRUE(bool(BytesOrErr)) << llvm::toString(BytesOrErr.takeError());
    return BytesOrErr ? fromBytes<T>(*BytesOrErr) : std::vector<T>();
  }

  static NDRange range1D(std::size_t Global, std::size_t Local = 0) {
    NDRange R;
    R.Dims = 1;
    R.Global = {Global, 1, 1};
    R.Local = {Local, 0, 0};
    return R;
  }

  static std::unique_ptr<OpenCLSession> Session;
  static std::string CreateError;
};

std::unique_ptr<OpenCLSession> OpenCLSessionTest::Session;
std::string OpenCLSessionTest::CreateError;

const char *VectorAdd = R"(
__kernel void vadd(__global const float *a, __global const float *b,
                   __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n)
    c[i] = a[i] + b[i];
}
)";

TEST_F(OpenCLSessionTest, DeviceIsDescribed) {
  EXPECT_FALSE(Session->deviceName().empty());
  // Whatever the device says, asking twice gives the same answer.
  EXPECT_EQ(Session->supportsDouble(), Session->supportsDouble());
  EXPECT_EQ(Session->supportsImages(), Session->supportsImages());
}

TEST_F(OpenCLSessionTest, KernelArgScalarsAreTheValuesBytes) {
  KernelArg F = KernelArg::f32(1.5f);
  ASSERT_EQ(F.ArgKind, KernelArg::Kind::Scalar);
  ASSERT_EQ(F.Bytes.size(), sizeof(float));
  float FV;
  std::memcpy(&FV, F.Bytes.data(), sizeof FV);
  EXPECT_EQ(FV, 1.5f);

  KernelArg D = KernelArg::f64(-2.25);
  ASSERT_EQ(D.Bytes.size(), sizeof(double));
  double DV;
  std::memcpy(&DV, D.Bytes.data(), sizeof DV);
  EXPECT_EQ(DV, -2.25);

  EXPECT_EQ(KernelArg::i32(-7).Bytes.size(), 4u);
  EXPECT_EQ(KernelArg::u32(7).Bytes.size(), 4u);
  EXPECT_EQ(KernelArg::i64(-7).Bytes.size(), 8u);
  std::int64_t IV;
  std::memcpy(&IV, KernelArg::i64(-7).Bytes.data(), sizeof IV);
  EXPECT_EQ(IV, -7);

  KernelArg B = KernelArg::buffer(3);
  EXPECT_EQ(B.ArgKind, KernelArg::Kind::Buffer);
  EXPECT_EQ(B.BufferId, 3u);
  KernelArg L = KernelArg::local(256);
  EXPECT_EQ(L.ArgKind, KernelArg::Kind::LocalMemory);
  EXPECT_EQ(L.LocalBytes, 256u);
}

TEST_F(OpenCLSessionTest, VectorAddWithGuardOnOddSize) {
  const int N = 1003; // not a multiple of 16
  std::vector<float> A(N), B(N), C(N, -1.0f);
  for (int I = 0; I < N; ++I) {
    A[I] = 0.5f * I;
    B[I] = 1000.0f - 3.0f * I;
  }
  unsigned Prog = build(VectorAdd);
  unsigned BufA = buffer(A), BufB = buffer(B), BufC = buffer(C);
  std::vector<KernelArg> Args = {KernelArg::buffer(BufA),
                                 KernelArg::buffer(BufB),
                                 KernelArg::buffer(BufC), KernelArg::i32(N)};

  // Whole work-groups of 16 (1008 work-items), the guard drops the last 5.
  llvm::Error E = Session->launch(Prog, "vadd", Args, range1D(1008, 16));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  std::vector<float> Out = read<float>(BufC);
  ASSERT_EQ(Out.size(), std::size_t(N));
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], A[I] + B[I]) << "element " << I;

  // And with the work-group size left to the runtime, exactly N work-items.
  std::vector<float> Zero(N, 0.0f);
  unsigned BufC2 = buffer(Zero);
  Args[2] = KernelArg::buffer(BufC2);
  E = Session->launch(Prog, "vadd", Args, range1D(N));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  Out = read<float>(BufC2);
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], A[I] + B[I]) << "element " << I;
}

TEST_F(OpenCLSessionTest, TwoDimensionalRangeWithExplicitWorkGroups) {
  const char *Src = R"(
__kernel void ids(__global int *linear, __global int *group,
                  __global int *local_, int w) {
  int x = get_global_id(0), y = get_global_id(1);
  int i = y * w + x;
  linear[i] = i;
  group[i] = get_group_id(1) * get_num_groups(0) + get_group_id(0);
  local_[i] = get_local_id(1) * get_local_size(0) + get_local_id(0);
}
)";
  const int W = 48, H = 32, LX = 16, LY = 8;
  unsigned Prog = build(Src);
  std::vector<int> Init(W * H, -1);
  unsigned Lin = buffer(Init), Grp = buffer(Init), Loc = buffer(Init);
  NDRange R;
  R.Dims = 2;
  R.Global = {W, H, 1};
  R.Local = {LX, LY, 1};
  llvm::Error E =
      Session->launch(Prog, "ids",
                      {KernelArg::buffer(Lin), KernelArg::buffer(Grp),
                       KernelArg::buffer(Loc), KernelArg::i32(W)},
                      R);
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));

  std::vector<int> L = read<int>(Lin), G = read<int>(Grp), T = read<int>(Loc);
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      int I = Y * W + X;
      ASSERT_EQ(L[I], I) << "x=" << X << " y=" << Y;
      ASSERT_EQ(G[I], (Y / LY) * (W / LX) + X / LX) << "x=" << X << " y=" << Y;
      ASSERT_EQ(T[I], (Y % LY) * LX + X % LX) << "x=" << X << " y=" << Y;
    }
}

TEST_F(OpenCLSessionTest, ScalarFloatArgument) {
  const char *Src = R"(
__kernel void saxpy(float alpha, __global const float *x, __global float *y,
                    int n) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}
)";
  const int N = 100;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = float(I);
    Y[I] = float(2 * I + 1);
  }
  unsigned Prog = build(Src);
  unsigned BX = buffer(X), BY = buffer(Y);
  llvm::Error E = Session->launch(Prog, "saxpy",
                                  {KernelArg::f32(2.5f), KernelArg::buffer(BX),
                                   KernelArg::buffer(BY), KernelArg::i32(N)},
                                  range1D(N));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  std::vector<float> Out = read<float>(BY);
  for (int I = 0; I < N; ++I)
    ASSERT_FLOAT_EQ(Out[I], 2.5f * X[I] + Y[I]) << "element " << I;
}

TEST_F(OpenCLSessionTest, ScalarDoubleArgument) {
  if (!Session->supportsDouble())
    GTEST_SKIP() << Session->deviceName() << " has no double precision";
  const char *Src = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void daxpy(double alpha, __global const double *x,
                    __global double *y, long n) {
  long i = get_global_id(0);
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}
)";
  const int N = 77;
  std::vector<double> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = 1.0 / (I + 1);
    Y[I] = 1e-9 * I;
  }
  unsigned Prog = build(Src);
  unsigned BX = buffer(X), BY = buffer(Y);
  // 0.1 is not a float: a float-width round trip would be caught below.
  llvm::Error E = Session->launch(Prog, "daxpy",
                                  {KernelArg::f64(0.1), KernelArg::buffer(BX),
                                   KernelArg::buffer(BY), KernelArg::i64(N)},
                                  range1D(80, 16));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  std::vector<double> Out = read<double>(BY);
  for (int I = 0; I < N; ++I)
    ASSERT_DOUBLE_EQ(Out[I], 0.1 * X[I] + Y[I]) << "element " << I;
}

// A kernel split at a global barrier runs as two launches on one in-order
// queue: the second must see everything the first wrote, from any work-item.
TEST_F(OpenCLSessionTest, SecondLaunchSeesWhatTheFirstWrote) {
  const char *Src = R"(
__kernel void phase1(__global const int *in, __global int *tmp, int n) {
  int i = get_global_id(0);
  if (i < n)
    tmp[i] = in[i] * 2;
}
__kernel void phase2(__global const int *tmp, __global int *out, int n) {
  int i = get_global_id(0);
  if (i < n)
    out[i] = tmp[n - 1 - i] + 1;
}
)";
  const int N = 513;
  std::vector<int> In(N), Zero(N, 0);
  for (int I = 0; I < N; ++I)
    In[I] = I * 7 - 100;
  unsigned Prog = build(Src);
  unsigned BIn = buffer(In), BTmp = buffer(Zero), BOut = buffer(Zero);
  llvm::Error E = Session->launch(
      Prog, "phase1",
      {KernelArg::buffer(BIn), KernelArg::buffer(BTmp), KernelArg::i32(N)},
      range1D(528, 16));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  E = Session->launch(
      Prog, "phase2",
      {KernelArg::buffer(BTmp), KernelArg::buffer(BOut), KernelArg::i32(N)},
      range1D(528, 16));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  std::vector<int> Out = read<int>(BOut);
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], In[N - 1 - I] * 2 + 1) << "element " << I;

  // Launching the first kernel again reuses it (cached) with new arguments.
  std::vector<int> Ones(N, 1);
  unsigned BOnes = buffer(Ones);
  E = Session->launch(
      Prog, "phase1",
      {KernelArg::buffer(BOnes), KernelArg::buffer(BTmp), KernelArg::i32(N)},
      range1D(N));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  for (int V : read<int>(BTmp))
    ASSERT_EQ(V, 2);
}

TEST_F(OpenCLSessionTest, LocalMemoryBlockSum) {
  const char *Src = R"(
__kernel void blocksum(__global const int *in, __global int *sums,
                       __local int *scratch, int n) {
  int i = get_global_id(0), t = get_local_id(0);
  scratch[t] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (t < s)
      scratch[t] += scratch[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0)
    sums[get_group_id(0)] = scratch[0];
}
)";
  const int N = 1000, Block = 64, Groups = (N + Block - 1) / Block;
  std::vector<int> In(N), Sums(Groups, -1);
  for (int I = 0; I < N; ++I)
    In[I] = (I * 37) % 101 - 50;
  unsigned Prog = build(Src);
  unsigned BIn = buffer(In), BSums = buffer(Sums);
  llvm::Error E = Session->launch(
      Prog, "blocksum",
      {KernelArg::buffer(BIn), KernelArg::buffer(BSums),
       KernelArg::local(Block * sizeof(int)), KernelArg::i32(N)},
      range1D(Groups * Block, Block));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  std::vector<int> Out = read<int>(BSums);
  ASSERT_EQ(Out.size(), std::size_t(Groups));
  for (int G = 0; G < Groups; ++G) {
    int Expected = 0;
    for (int I = G * Block; I < (G + 1) * Block && I < N; ++I)
      Expected += In[I];
    ASSERT_EQ(Out[G], Expected) << "group " << G;
  }
}

// The texture variant reads read-only arrays as image1d_buffer_t views of
// their buffers: float and int channels, odd widths; the buffer stays
// readable, and widths the device cannot take are errors.
TEST_F(OpenCLSessionTest, ImageViewsOfBuffers) {
  if (!Session->supportsImages())
    GTEST_SKIP() << Session->deviceName() << " has no images";
  const int N = 1003;
  std::vector<float> A(N);
  std::vector<int> B(N);
  for (int I = 0; I < N; ++I) {
    A[I] = 0.25f * float(I) - 7.0f;
    B[I] = 3 * I - 1000;
  }
  unsigned Prog = build(R"(
__kernel void k(__read_only image1d_buffer_t a, __read_only image1d_buffer_t b,
                __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n)
    c[i] = read_imagef(a, i).x + (float)read_imagei(b, n - 1 - i).x;
}
)");
  unsigned BA = buffer(A), BB = buffer(B), BC = buffer(std::vector<float>(N));
  auto IA =
      Session->createImage1DBuffer(BA, OpenCLSession::ImageChannel::Float, N);
  ASSERT_TRUE(bool(IA)) << llvm::toString(IA.takeError());
  auto IB =
      Session->createImage1DBuffer(BB, OpenCLSession::ImageChannel::Int, N);
  ASSERT_TRUE(bool(IB)) << llvm::toString(IB.takeError());
  llvm::Error E =
      Session->launch(Prog, "k",
                      {KernelArg::buffer(*IA), KernelArg::buffer(*IB),
                       KernelArg::buffer(BC), KernelArg::i32(N)},
                      range1D(1024));
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  std::vector<float> C = read<float>(BC);
  ASSERT_EQ(C.size(), std::size_t(N));
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + float(B[N - 1 - I])) << "at " << I;
  EXPECT_EQ(read<float>(BA), A);

  std::size_t Max = Session->imageMaxBufferSize();
  EXPECT_GT(Max, 0u);
  auto Over = Session->createImage1DBuffer(
      BA, OpenCLSession::ImageChannel::Float, Max + 1);
  ASSERT_FALSE(bool(Over));
  EXPECT_NE(
      llvm::toString(Over.takeError()).find("CL_DEVICE_IMAGE_MAX_BUFFER_SIZE"),
      std::string::npos);
  auto Zero =
      Session->createImage1DBuffer(BA, OpenCLSession::ImageChannel::Float, 0);
  ASSERT_FALSE(bool(Zero));
  llvm::consumeError(Zero.takeError());
}

TEST_F(OpenCLSessionTest, BuildOptionsArePassed) {
  const char *Src = R"(
__kernel void fill(__global int *out) { out[get_global_id(0)] = SCALE; }
)";
  unsigned Prog = build(Src, "-DSCALE=3");
  // An explicit -cl-std is kept as given (no second -cl-std is added).
  unsigned Prog2 = build(Src, "-cl-std=CL1.2 -DSCALE=5");
  std::vector<int> Zero(8, 0);
  unsigned B = buffer(Zero), B2 = buffer(Zero);
  llvm::Error E =
      Session->launch(Prog, "fill", {KernelArg::buffer(B)}, range1D(8));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  E = Session->launch(Prog2, "fill", {KernelArg::buffer(B2)}, range1D(8));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  for (int V : read<int>(B))
    EXPECT_EQ(V, 3);
  for (int V : read<int>(B2))
    EXPECT_EQ(V, 5);
}

// What is released is gone (a run of many --tune candidates frees each
// one's), and the session goes on with what it makes next.
TEST_F(OpenCLSessionTest, ReleasedBuffersAndProgramsAreGone) {
  const char *Src = R"(
__kernel void fill(__global int *out) { out[get_global_id(0)] = 7; }
)";
  unsigned Prog = build(Src);
  std::vector<int> Zero(8, 0);
  unsigned B = buffer(Zero);
  llvm::Error E =
      Session->launch(Prog, "fill", {KernelArg::buffer(B)}, range1D(8));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  Session->release(B);
  Session->releaseProgram(Prog);
  auto Gone = Session->readBuffer(B);
  EXPECT_FALSE(bool(Gone));
  if (!Gone)
    llvm::consumeError(Gone.takeError());
  unsigned B2 = buffer(Zero);
  E = Session->launch(Prog, "fill", {KernelArg::buffer(B2)}, range1D(8));
  EXPECT_TRUE(bool(E));
  llvm::consumeError(std::move(E));
  unsigned Again = build(Src);
  E = Session->launch(Again, "fill", {KernelArg::buffer(B2)}, range1D(8));
  ASSERT_FALSE(bool(E)) << errorText(std::move(E));
  for (int V : read<int>(B2))
    EXPECT_EQ(V, 7);
}

TEST_F(OpenCLSessionTest, EmptyBufferIsAllowed) {
  auto BufOrErr = Session->createBuffer({});
  ASSERT_TRUE(bool(BufOrErr)) << llvm::toString(BufOrErr.takeError());
  auto BytesOrErr = Session->readBuffer(*BufOrErr);
  ASSERT_TRUE(bool(BytesOrErr)) << llvm::toString(BytesOrErr.takeError());
  EXPECT_TRUE(BytesOrErr->empty());
  // A guarded kernel may still be handed it.
  unsigned Prog = build(VectorAdd);
  llvm::Error E = Session->launch(
      Prog, "vadd",
      {KernelArg::buffer(*BufOrErr), KernelArg::buffer(*BufOrErr),
       KernelArg::buffer(*BufOrErr), KernelArg::i32(0)},
      range1D(16, 16));
  EXPECT_FALSE(bool(E)) << errorText(std::move(E));
}

TEST_F(OpenCLSessionTest, BuildErrorCarriesTheBuildLog) {
  const char *Src = R"(
__kernel void broken(__global float *out) {
  out[get_global_id(0)] = undeclared_thing * 2.0f;
}
)";
  auto ProgOrErr = Session->buildProgram(Src);
  ASSERT_FALSE(bool(ProgOrErr));
  std::string Msg = llvm::toString(ProgOrErr.takeError());
  EXPECT_NE(Msg.find("clBuildProgram"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("undeclared_thing"), std::string::npos) << Msg;
}

TEST_F(OpenCLSessionTest, GlobalNotAMultipleOfLocalNamesTheDimension) {
  unsigned Prog = build(VectorAdd);
  std::vector<float> V(1003, 0.0f);
  unsigned B = buffer(V);
  std::vector<KernelArg> Args = {KernelArg::buffer(B), KernelArg::buffer(B),
                                 KernelArg::buffer(B), KernelArg::i32(1003)};
  std::string Msg =
      errorText(Session->launch(Prog, "vadd", Args, range1D(1003, 16)));
  EXPECT_NE(Msg.find("vadd"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("global size 1003 in dimension 0"), std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("local size 16"), std::string::npos) << Msg;

  NDRange R;
  R.Dims = 2;
  R.Global = {48, 30, 1};
  R.Local = {16, 8, 1};
  Msg = errorText(Session->launch(Prog, "vadd", Args, R));
  EXPECT_NE(Msg.find("global size 30 in dimension 1"), std::string::npos)
      << Msg;

  R.Local = {16, 0, 1};
  Msg = errorText(Session->launch(Prog, "vadd", Args, R));
  EXPECT_NE(Msg.find("local size is 0 in some"), std::string::npos) << Msg;

  R.Dims = 4;
  Msg = errorText(Session->launch(Prog, "vadd", Args, R));
  EXPECT_NE(Msg.find("4 dimensions"), std::string::npos) << Msg;
}

TEST_F(OpenCLSessionTest, WrongArgumentCountNamesKernelAndCounts) {
  unsigned Prog = build(VectorAdd);
  std::vector<float> V(16, 0.0f);
  unsigned B = buffer(V);
  std::string Msg = errorText(Session->launch(
      Prog, "vadd", {KernelArg::buffer(B), KernelArg::buffer(B)}, range1D(16)));
  EXPECT_NE(Msg.find("'vadd' takes 4 argument(s), 2 given"), std::string::npos)
      << Msg;
}

TEST_F(OpenCLSessionTest, OtherLaunchErrorsAreValues) {
  unsigned Prog = build(VectorAdd);
  std::vector<float> V(16, 0.0f);
  unsigned B = buffer(V);

  std::string Msg =
      errorText(Session->launch(Prog, "nosuchkernel", {}, range1D(16)));
  EXPECT_NE(Msg.find("clCreateKernel(nosuchkernel)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("CL_INVALID_KERNEL_NAME"), std::string::npos) << Msg;

  Msg = errorText(Session->launch(9999, "vadd", {}, range1D(16)));
  EXPECT_NE(Msg.find("no program 9999"), std::string::npos) << Msg;

  Msg =
      errorText(Session->launch(Prog, "vadd",
                                {KernelArg::buffer(B), KernelArg::buffer(B),
                                 KernelArg::buffer(12345), KernelArg::i32(16)},
                                range1D(16)));
  EXPECT_NE(Msg.find("argument 2 names buffer 12345"), std::string::npos)
      << Msg;

  // An 8-byte scalar for an int parameter.
  Msg = errorText(Session->launch(Prog, "vadd",
                                  {KernelArg::buffer(B), KernelArg::buffer(B),
                                   KernelArg::buffer(B), KernelArg::i64(16)},
                                  range1D(16)));
  EXPECT_NE(Msg.find("clSetKernelArg(vadd, argument 3)"), std::string::npos)
      << Msg;

  auto BytesOrErr = Session->readBuffer(12345);
  ASSERT_FALSE(bool(BytesOrErr));
  Msg = llvm::toString(BytesOrErr.takeError());
  EXPECT_NE(Msg.find("no buffer 12345"), std::string::npos) << Msg;
}

} // namespace

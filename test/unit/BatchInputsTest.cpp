//===- BatchInputsTest.cpp - lib/Driver/BatchInputs, BatchSummary ---------===//
#include "Driver/BatchInputs.h"
#include "Driver/BatchSummary.h"

#include "gtest/gtest.h"

using namespace gpumerge;

TEST(BatchInputs, DefinesKernelSeesCudaKernels) {
  EXPECT_TRUE(definesKernel("__global__ void k(float *a) {}", false));
  EXPECT_TRUE(definesKernel("template <int N>\n__global__ void k() {}", false));
  EXPECT_FALSE(
      definesKernel("__device__ float f(float x) { return x; }", false));
}

TEST(BatchInputs, DefinesKernelSkipsCommentsAndStrings) {
  EXPECT_FALSE(definesKernel("// __global__ void k();\n", false));
  EXPECT_FALSE(definesKernel("/* __global__\n void k(); */ int x;", false));
  EXPECT_FALSE(definesKernel("const char *s = \"__global__ \\\" x\";", false));
  EXPECT_FALSE(definesKernel("int my__global__x;", false));
  EXPECT_TRUE(definesKernel("/* c */ __global__ void k() {}", false));
  // An unterminated comment ends the text, not the scan's correctness.
  EXPECT_FALSE(definesKernel("/* __global__", false));
}

TEST(BatchInputs, DefinesKernelSeesOpenCLKernels) {
  EXPECT_TRUE(definesKernel("__kernel void k(__global float *a) {}", true));
  EXPECT_TRUE(definesKernel("kernel void k(global float *a) {}", true));
  // __global is an address space, not a kernel.
  EXPECT_FALSE(definesKernel("void f(__global float *a) {}", true));
  EXPECT_FALSE(definesKernel("__global__ void k() {}", true));
}

TEST(BatchInputs, FlagsOfCommandKeepParseFlags) {
  std::vector<std::string> Cmd = {"/usr/local/cuda/bin/nvcc",
                                  "-DA=1",
                                  "-D",
                                  "B",
                                  "-Iinc",
                                  "-I",
                                  "/abs",
                                  "-isystem",
                                  "sys",
                                  "-UC",
                                  "-include",
                                  "pre.h",
                                  "-std=c++14",
                                  "-O3",
                                  "--generate-code=arch=compute_90,code=sm_90",
                                  "-c",
                                  "k.cu",
                                  "-o",
                                  "k.o"};
  std::vector<std::string> Want = {"-DA=1",    "-DB",          "-I/build/inc",
                                   "-I/abs",   "-I/build/sys", "-UC",
                                   "-include", "/build/pre.h", "-std=c++14"};
  EXPECT_EQ(parseFlagsOfCommand(Cmd, "/build", false), Want);
}

TEST(BatchInputs, FlagsOfCommandNvccLongForms) {
  std::vector<std::string> Cmd = {"nvcc",
                                  "--define-macro",
                                  "N=4",
                                  "--define-macro=M",
                                  "--include-path",
                                  "../h",
                                  "--undefine-macro=U",
                                  "--pre-include=p.h",
                                  "-std",
                                  "c++17",
                                  "--std=c++20",
                                  "-include-pch",
                                  "x.pch"};
  std::vector<std::string> Want = {"-DN=4",      "-DM",       "-I/h",
                                   "-UU",        "-include",  "/src/p.h",
                                   "-std=c++17", "-std=c++20"};
  EXPECT_EQ(parseFlagsOfCommand(Cmd, "/src", false), Want);
}

TEST(BatchInputs, FlagsOfCommandOpenCLStandard) {
  std::vector<std::string> Cmd = {"clang", "-cl-std=CL2.0", "-std=c++17",
                                  "-DX"};
  std::vector<std::string> Want = {"-cl-std=CL2.0", "-DX"};
  EXPECT_EQ(parseFlagsOfCommand(Cmd, "/d", true), Want);
}

TEST(BatchSummary, ReasonGroupIsTheHead) {
  EXPECT_EQ(reasonGroup("no pass applied (coalesce: no loop; prefetch: x)"),
            "no pass applied");
  EXPECT_EQ(reasonGroup("texture-memory: a is written; the texture variant "
                        "is written unchanged"),
            "texture-memory");
  EXPECT_EQ(reasonGroup("atomic operation 'atomicAdd' at line 12"),
            "atomic operation 'atomicAdd'");
  EXPECT_EQ(reasonGroup("plain"), "plain");
}

TEST(BatchSummary, TallyCountsVariantsAndFiles) {
  FileOutcome Ok;
  Ok.Path = "a.cu";
  Ok.Report = llvm::json::Object{
      {"kernels", llvm::json::Array{llvm::json::Object{
                      {"name", "k"},
                      {"variants",
                       llvm::json::Array{
                           llvm::json::Object{
                               {"status", "optimized"},
                               {"verify", "ok"},
                               {"not_applied",
                                llvm::json::Array{llvm::json::Object{
                                    {"name", "prefetch"},
                                    {"reason", "internal error (a bug)"}}}}},
                           llvm::json::Object{{"status", "passed-through"},
                                              {"reason", "no pass applied (x)"},
                                              {"verify", "skipped"}}}}}}},
      {"helpers", llvm::json::Array{}}};
  FileOutcome Bad;
  Bad.Path = "b.cu";
  Bad.Exit = ExitBadInput;
  BatchTally T = tallyBatch({Ok, Bad}, {{"c.cuh", "no kernel in it"}});
  EXPECT_EQ(T.Files, 2u);
  EXPECT_EQ(T.FilesByExit[ExitOk], std::vector<std::string>{"a.cu"});
  EXPECT_EQ(T.FilesByExit[ExitBadInput], std::vector<std::string>{"b.cu"});
  EXPECT_EQ(T.NotTaken["no kernel in it"], 1u);
  EXPECT_EQ(T.Kernels, 1u);
  EXPECT_EQ(T.Variants, 2u);
  EXPECT_EQ(T.Optimized, 1u);
  EXPECT_EQ(T.PassedThrough, 1u);
  EXPECT_EQ(T.PassedThroughBy["no pass applied"], 1u);
  EXPECT_EQ(T.Verify["ok"], 1u);
  EXPECT_EQ(T.Verify["skipped"], 1u);
  EXPECT_EQ(T.InternalErrors, 1u);
}

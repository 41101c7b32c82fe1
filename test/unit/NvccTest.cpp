//===- NvccTest.cpp - Reading nvcc command lines, and what the copy needs -===//
//
// How gpumerge-nvcc reads an nvcc command line (inputs versus option values,
// nvcc's spellings, options files, what passes through), the flags a parse
// gets, the target chosen for a build's architectures, the `#line` mapping
// of a rewrite back to its original, quoted includes anchored to the
// original's directory, and dependency files spelled back.
//
//===----------------------------------------------------------------------===//

#include "Nvcc/ArchTarget.h"
#include "Nvcc/Dependencies.h"
#include "Nvcc/LineDirectives.h"
#include "Nvcc/NvccCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace gpumerge;
using namespace gpumerge::nvcc;

namespace {

Command parse(std::vector<std::string> Argv, llvm::StringRef Dir = "") {
  auto C = parseCommand(Argv, Dir);
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return {};
  }
  return std::move(*C);
}

std::vector<std::string> inputs(const Command &C) {
  std::vector<std::string> Out;
  for (const Arg &A : C.Args)
    if (A.isInput())
      Out.push_back(A.Value);
  return Out;
}

std::vector<std::string> cudaSources(const Command &C) {
  std::vector<std::string> Out;
  for (size_t I : C.CudaSources)
    Out.push_back(C.Args[I].Value);
  return Out;
}

using Strings = std::vector<std::string>;

// --- Inputs versus option values --------------------------------------------

TEST(NvccCommand, ValuesAreNotInputs) {
  Command C = parse({"-c",         "-o",    "out.cu.o", "-arch", "sm_90",
                     "-Xcompiler", "-fPIC", "-ccbin",   "g++",   "-MF",
                     "deps.d",     "-MT",   "t.cu.o",   "-x",    "cu",
                     "a.cu",       "-odir", "objs",     "-I",    "inc",
                     "-include",   "pre.h", "-std",     "c++17", "b.cu"});
  EXPECT_EQ(inputs(C), (Strings{"a.cu", "b.cu"}));
  EXPECT_EQ(C.What, Action::Compile);
  EXPECT_EQ(C.lastValue("output-file"), "out.cu.o");
  EXPECT_EQ(C.lastValue("compiler-bindir"), "g++");
  EXPECT_EQ(C.lastValue("output-directory"), "objs");
}

TEST(NvccCommand, Spellings) {
  // Long and short names, `=` and the next token, glued short values.
  Command C = parse({"--gpu-architecture=sm_80", "-Isub", "-DX=1", "-O3",
                     "--output-file", "x.o", "-lineinfo", "-lcublas",
                     "-L/opt/lib", "-t2", "-rdc=true", "-m64", "x.cu"});
  EXPECT_EQ(inputs(C), (Strings{"x.cu"}));
  EXPECT_EQ(C.lastValue("gpu-architecture"), "sm_80");
  EXPECT_EQ(C.lastValue("include-path"), "sub");
  EXPECT_EQ(C.lastValue("define-macro"), "X=1");
  EXPECT_EQ(C.lastValue("optimize"), "3");
  EXPECT_EQ(C.lastValue("output-file"), "x.o");
  EXPECT_EQ(C.lastValue("library"), "cublas");
  EXPECT_EQ(C.lastValue("relocatable-device-code"), "true");
  EXPECT_TRUE(C.has("generate-line-info")); // not -l + "ineinfo"
  EXPECT_TRUE(C.has("m64"));
}

TEST(NvccCommand, UnknownOptionsAreKept) {
  Command C = parse({"-forward-unknown-to-host-compiler", "-Wall", "-fPIC",
                     "--foo=bar", "k.cu"});
  EXPECT_EQ(inputs(C), (Strings{"k.cu"}));
  EXPECT_EQ(C.nvccArgs(), (Strings{"-forward-unknown-to-host-compiler", "-Wall",
                                   "-fPIC", "--foo=bar", "k.cu"}));
}

TEST(NvccCommand, MissingValueIsAnError) {
  auto C = parseCommand({"k.cu", "-o"});
  ASSERT_FALSE(static_cast<bool>(C));
  EXPECT_NE(llvm::toString(C.takeError()).find("'-o' needs a value"),
            std::string::npos);
}

// --- CUDA sources and what passes through -----------------------------------

TEST(NvccCommand, WhichInputsAreCuda) {
  EXPECT_EQ(cudaSources(parse({"-c", "a.cu", "b.cpp", "c.o", "d.a"})),
            (Strings{"a.cu"}));
  // -x cu makes C/C++ sources CUDA, wherever it stands; not objects.
  EXPECT_EQ(cudaSources(parse({"-c", "b.cpp", "c.o", "-x", "cu", "e.cc"})),
            (Strings{"b.cpp", "e.cc"}));
  // -x c++ makes a .cu file plain C++.
  EXPECT_EQ(cudaSources(parse({"-x", "c++", "-c", "a.cu"})), Strings{});
}

TEST(NvccCommand, PassThrough) {
  auto Why = [](Strings Argv) {
    Command C = parse(Argv);
    return C.What == Action::PassThrough ? C.PassThroughReason : "compile";
  };
  EXPECT_EQ(Why({"--version"}), "--version");
  EXPECT_EQ(Why({"-V"}), "--version");
  EXPECT_EQ(Why({"-v", "-c", "a.cu"}), "-v");
  EXPECT_EQ(Why({"--dryrun", "-c", "a.cu"}), "--dryrun");
  EXPECT_EQ(Why({"-E", "a.cu"}), "-E");
  EXPECT_EQ(Why({"-M", "a.cu"}), "-M");
  EXPECT_EQ(Why({"-MM", "a.cu"}), "-MM");
  EXPECT_EQ(Why({"-cuda", "a.cu"}), "-cuda");
  EXPECT_EQ(Why({"a.o", "b.o", "-o", "app"}),
            "no CUDA source among the inputs");
  EXPECT_EQ(Why({"-c", "main.cpp"}), "no CUDA source among the inputs");
  // -MD compiles (and writes dependencies): not a pass-through.
  EXPECT_EQ(Why({"-MD", "-MF", "a.d", "-c", "a.cu"}), "compile");
  EXPECT_EQ(Why({"-ptx", "a.cu"}), "compile");
  EXPECT_EQ(Why({"-dc", "a.cu"}), "compile");
  EXPECT_EQ(Why({"a.cu", "b.o", "-o", "app"}), "compile");
}

// --- Options files ----------------------------------------------------------

class OptionsFile : public ::testing::Test {
protected:
  llvm::SmallString<128> Dir;
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nvcc-optf", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  void write(llvm::StringRef Name, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS((Dir + "/" + Name).str(), EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }
};

TEST_F(OptionsFile, ReadInPlaceAndKeptAsWritten) {
  // As CMake's Makefiles write includes_CUDA.rsp: quoted, one line.
  write("includes.rsp", "-I\"/opt/with space/inc\" -DFROM_FILE=1\n");
  write("more.rsp", "-isystem /sys/inc");
  Command C =
      parse({"--options-file", "includes.rsp,more.rsp", "-c", "k.cu"}, Dir);
  EXPECT_EQ(C.clangArgs(), (Strings{"-I/opt/with space/inc", "-DFROM_FILE=1",
                                    "-isystem", "/sys/inc"}));
  // Nothing in them changes: nvcc gets the options file, not its contents.
  EXPECT_EQ(C.nvccArgs({{C.CudaSources[0], "/tmp/copy/k.cu"}}),
            (Strings{"--options-file", "includes.rsp,more.rsp", "-c",
                     "/tmp/copy/k.cu"}));
}

TEST_F(OptionsFile, ReplacedInputInsideIsInlined) {
  write("sources.rsp", "-c k.cu -Xgpumerge --verify");
  Command C = parse({"-optf", "sources.rsp", "-o", "k.o"}, Dir);
  ASSERT_EQ(cudaSources(C), (Strings{"k.cu"}));
  EXPECT_EQ(C.gpumergeOptions(), (Strings{"--verify"}));
  EXPECT_EQ(C.nvccArgs({{C.CudaSources[0], "/tmp/copy/k.cu"}}),
            (Strings{"-c", "/tmp/copy/k.cu", "-o", "k.o"}));
  // -Xgpumerge alone also makes the file be read in place (nvcc does not
  // know it).
  EXPECT_EQ(C.nvccArgs(), (Strings{"-c", "k.cu", "-o", "k.o"}));
}

TEST_F(OptionsFile, UnreadableIsAnError) {
  auto C = parseCommand({"--options-file", "missing.rsp", "k.cu"}, Dir);
  ASSERT_FALSE(static_cast<bool>(C));
  EXPECT_NE(llvm::toString(C.takeError()).find("missing.rsp"),
            std::string::npos);
}

// --- Flags of the parse -----------------------------------------------------

TEST(NvccCommand, ClangArgs) {
  Command C =
      parse({"-D", "A=1,B=2", "-Iinc,other", "-UX", "-include", "pre.h",
             "--std=c++14", "-Xcompiler", "-DHOST=1,-fPIC,-isystem,/sys,-Ihost",
             "-isystem", "/cuda/inc", "-c", "k.cu"});
  EXPECT_EQ(C.clangArgs(),
            (Strings{"-DA=1", "-DB=2", "-Iinc", "-Iother", "-UX", "-include",
                     "pre.h", "-std=c++14", "-DHOST=1", "-isystem", "/sys",
                     "-Ihost", "-isystem", "/cuda/inc"}));
  // compile_commands.json: relative paths are the entry's directory's.
  EXPECT_EQ(
      parse({"-Iinc", "-include", "p.h", "-I/abs", "k.cu"}).clangArgs("/build"),
      (Strings{"-I/build/inc", "-include", "/build/p.h", "-I/abs"}));
}

TEST(NvccCommand, XgpumergeNeverReachesNvcc) {
  Command C = parse(
      {"-Xgpumerge", "--memory=texture", "-c", "k.cu", "-Xgpumerge=--verify"});
  EXPECT_EQ(C.gpumergeOptions(), (Strings{"--memory=texture", "--verify"}));
  EXPECT_EQ(C.nvccArgs(), (Strings{"-c", "k.cu"}));
}

// --- Architectures and targets ----------------------------------------------

TEST(NvccCommand, Architectures) {
  EXPECT_EQ(parse({"-arch=sm_90", "k.cu"}).architectures(),
            std::vector<unsigned>{90});
  EXPECT_EQ(parse({"-arch", "compute_80", "-code", "sm_80,sm_86", "k.cu"})
                .architectures(),
            (std::vector<unsigned>{80, 86}));
  EXPECT_EQ(parse({"--generate-code=arch=compute_75,code=[compute_75,sm_75]",
                   "-gencode", "arch=compute_90a,code=sm_90a", "k.cu"})
                .architectures(),
            (std::vector<unsigned>{75, 90}));
  EXPECT_EQ(parse({"k.cu"}).architectures(), std::vector<unsigned>{});
  EXPECT_EQ(parse({"-arch=all-major", "k.cu"}).symbolicArchitecture(),
            "all-major");
}

const std::vector<std::pair<std::string, unsigned>> Shipped = {
    {"h100", 90}, {"v100", 70}, {"a100", 80}};

TEST(ArchTarget, ExactMatchesSayNothing) {
  TargetChoice C = chooseTarget({90}, "", Shipped);
  EXPECT_EQ(C.Target, "h100");
  EXPECT_EQ(C.Note, "");
  EXPECT_EQ(chooseTarget({80}, "", Shipped).Target, "a100");
  EXPECT_EQ(chooseTarget({70}, "", Shipped).Target, "v100");
}

TEST(ArchTarget, SeveralTakeTheNewestAndSaySo) {
  TargetChoice C = chooseTarget({70, 80, 90}, "", Shipped);
  EXPECT_EQ(C.Target, "h100");
  EXPECT_NE(C.Note.find("several architectures (sm_70, sm_80, sm_90)"),
            std::string::npos)
      << C.Note;
}

TEST(ArchTarget, InexactTakesTheNewestNotNewer) {
  TargetChoice C = chooseTarget({86}, "", Shipped);
  EXPECT_EQ(C.Target, "a100");
  EXPECT_NE(C.Note.find("sm_86 has no machine description: using a100"),
            std::string::npos)
      << C.Note;
  EXPECT_EQ(chooseTarget({100}, "", Shipped).Target, "h100");
  // Older than every description: the oldest.
  EXPECT_EQ(chooseTarget({52}, "", Shipped).Target, "v100");
  // None given: nvcc's default.
  TargetChoice D = chooseTarget({}, "", Shipped);
  EXPECT_EQ(D.Target, "v100");
  EXPECT_NE(D.Note.find("no -arch given"), std::string::npos) << D.Note;
  EXPECT_EQ(chooseTarget({}, "all", Shipped).Target, "h100");
  EXPECT_EQ(chooseTarget({}, "", {}).Target, "");
}

// --- #line directives -------------------------------------------------------

/// The presumed line of each line of \p Annotated's text (not directives).
std::vector<unsigned> presumedLines(llvm::StringRef Annotated) {
  std::vector<unsigned> Out;
  unsigned Line = 1;
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Annotated.split(Lines, '\n');
  if (!Lines.empty() && Lines.back().empty())
    Lines.pop_back();
  for (llvm::StringRef L : Lines) {
    if (L.consume_front("#line ")) {
      L.consumeInteger(10, Line);
      continue;
    }
    Out.push_back(Line++);
  }
  return Out;
}

TEST(LineDirectives, UnchangedLinesKeepTheirNumbers) {
  std::string Original = "#include \"h.h\"\n"              // 1
                         "__global__ void k(float *a) {\n" // 2
                         "  a[0] = 1;\n"                   // 3
                         "}\n"                             // 4
                         "int host() {\n"                  // 5
                         "  k<<<1, 1>>>(0);\n"             // 6
                         "  return 0;\n"                   // 7
                         "}\n";                            // 8
  std::string Rewritten = "#include \"h.h\"\n"
                          "__global__ void k_naive(float *a) {\n"
                          "  a[0] = 1;\n"
                          "}\n"
                          "__global__ void k(float *a) {\n"
                          "  a[threadIdx.x] = 1;\n"
                          "}\n"
                          "static void gpumerge_launch_k() {\n"
                          "}\n"
                          "int host() {\n"
                          "  gpumerge_launch_k(1, 1, 0, 0, 0);\n"
                          "  return 0;\n"
                          "}\n";
  std::string Out = addLineDirectives(Original, Rewritten, "dir/k.cu");
  EXPECT_EQ(llvm::StringRef(Out).take_front(19), "#line 1 \"dir/k.cu\"\n");
  std::vector<unsigned> P = presumedLines(Out);
  ASSERT_EQ(P.size(), 13u);
  EXPECT_EQ(P[0], 1u); // the include
  EXPECT_EQ(P[1], 2u); // k_naive: replaces line 2
  EXPECT_EQ(P[2], 3u);
  EXPECT_EQ(P[3], 4u);
  // The optimized kernel and the launcher: all at line 4, after which they
  // were inserted (a lone `}` of theirs is not the original's).
  for (unsigned I = 4; I < 9; ++I)
    EXPECT_EQ(P[I], 4u) << "line " << I + 1;
  EXPECT_EQ(P[9], 5u);  // int host()
  EXPECT_EQ(P[10], 6u); // the rewritten launch replaces line 6
  EXPECT_EQ(P[11], 7u);
  EXPECT_EQ(P[12], 8u);
}

TEST(LineDirectives, NeverInsideCommentsOrContinuations) {
  std::string Original = "int a;\n";
  std::string Rewritten = "int b;\n"
                          "/* a comment\n"
                          "   that goes on */\n"
                          "#define M(x) \\\n"
                          "  (x)\n"
                          "const char *s = R\"(raw\n"
                          "text)\";\n"
                          "int a;\n";
  std::string Out = addLineDirectives(Original, Rewritten, "k.cu");
  EXPECT_EQ(Out.find("comment\n#line"), std::string::npos) << Out;
  EXPECT_EQ(Out.find("\\\n#line"), std::string::npos) << Out;
  EXPECT_EQ(Out.find("raw\n#line"), std::string::npos) << Out;
  // The last line is the original's line 1 again.
  EXPECT_NE(Out.find("#line 1 \"k.cu\"\nint a;\n"), std::string::npos) << Out;
}

TEST(LineDirectives, NameIsQuoted) {
  std::string Out = addLineDirectives("x\n", "y\n", "a \"b\"\\c.cu");
  EXPECT_EQ(llvm::StringRef(Out).split('\n').first,
            "#line 1 \"a \\\"b\\\"\\\\c.cu\"");
}

TEST(LineDirectives, MatchLinesIsAMinimalDiff) {
  EXPECT_EQ(matchLines("int a;\nint b;\nint c;\nint d;\n",
                       "int a;\nint x;\nint c;\nint d;\nint y;\n"),
            (std::vector<unsigned>{1, 0, 3, 4, 0}));
  // Short runs of braces and blank lines amid new lines are new lines.
  EXPECT_EQ(matchLines("int a;\n}\n\nint b;\n",
                       "int a;\nint x;\n}\n\nint y;\nint b;\n"),
            (std::vector<unsigned>{1, 0, 0, 0, 0, 4}));
  EXPECT_EQ(matchLines("", "a\n"), std::vector<unsigned>{0});
  EXPECT_EQ(matchLines("a\n", ""), std::vector<unsigned>{});
}

// --- Includes and dependency files ------------------------------------------

TEST_F(OptionsFile, QuotedIncludesAnchored) {
  write("h.h", "");
  llvm::sys::fs::create_directories(Dir + "/sub");
  write("sub/g.h", "");
  std::string Text = "#include \"h.h\"\n"
                     "  #  include \"sub/g.h\" // x\n"
                     "#include \"missing.h\"\n"
                     "#include <h.h>\n";
  std::string Out = anchorQuotedIncludes(Text, Dir);
  EXPECT_EQ(Out, "#include \"" + Dir.str().str() + "/h.h\"\n" +
                     "  #  include \"" + Dir.str().str() + "/sub/g.h\" // x\n" +
                     "#include \"missing.h\"\n#include <h.h>\n");
}

TEST(Dependencies, SpelledBack) {
  std::string Deps = "k.o : /tmp/gpumerge-nvcc-x/0/k.cu \\\n"
                     "    /usr/include/stdio.h \\\n"
                     "    /home/u/src/h.h /home/u/src/sub/g.h \\\n"
                     "    /home/u/src/h.hpp /home/u/srcx/h.h\n";
  std::vector<PathRewrite> R = {{"/tmp/gpumerge-nvcc-x/0/k.cu", "src/k.cu"},
                                {"/home/u/src", "src", true}};
  EXPECT_EQ(rewriteDependencyPaths(Deps, R),
            "k.o : src/k.cu \\\n"
            "    /usr/include/stdio.h \\\n"
            "    src/h.h src/sub/g.h \\\n"
            "    src/h.hpp /home/u/srcx/h.h\n");
  // An original given without a directory, and a name with a space.
  std::vector<PathRewrite> Here = {{"/t/0/my k.cu", "my k.cu"},
                                   {"/home/u", "", true}};
  EXPECT_EQ(
      rewriteDependencyPaths("my\\ k.o: /t/0/my\\ k.cu /home/u/h.h\n", Here),
      "my\\ k.o: my\\ k.cu h.h\n");
}

} // namespace

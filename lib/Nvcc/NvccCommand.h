//===- NvccCommand.h - An nvcc command line, classified ---------*- C++ -*-===//
//
// gpumerge-nvcc stands where nvcc stands in a build, so it has to read an
// nvcc command line the way nvcc does before it can touch anything: which
// tokens are inputs and which are option values (`-o x.o`, `-arch sm_90`,
// `-Xcompiler -fPIC`), what the invocation does (compile, link, preprocess,
// print a version), which flags the parse of a source needs (-D, -I,
// -include, -std, also inside -Xcompiler), and which architectures the
// build is for. nvcc's own syntax is followed: long options with `--` and
// short ones with `-`, each taking its value after `=` or as the next token;
// -I, -D, -U, -L, -l, -O and -t also glued to the value (`-Isub`, `-O3`);
// the values of list options split at commas (`-D A=1,B=2` defines two
// macros, as nvcc does); `--options-file`/`-optf` files (comma-separated
// names, as CMake writes them) read in place.
//
// The batch driver reads compile_commands.json entries with the same code,
// so a CUDA file gets the flags its build gives it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_NVCC_NVCCCOMMAND_H
#define GPUMERGE_NVCC_NVCCCOMMAND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpumerge {
namespace nvcc {

/// One option or input of the command line.
struct Arg {
  /// The tokens as written: {"-o", "x.o"}, {"-arch=sm_90"}, {"x.cu"}.
  std::vector<std::string> Spelling;
  /// nvcc's long name without dashes ("output-file", "gpu-architecture"),
  /// the token itself for an option nvcc-the-table does not know, and ""
  /// for an input.
  std::string Option;
  std::string Value; ///< the value of an option that takes one; the path
                     ///< of an input
  /// Index of the --options-file argument (in Command::Args) this one was
  /// read from; -1 when it was on the command line itself.
  int FromOptionsFile = -1;
  bool isInput() const { return Option.empty(); }
};

/// What an invocation does, for gpumerge-nvcc's purposes.
enum class Action {
  Compile,     ///< CUDA sources to compile (possibly also linking)
  PassThrough, ///< nothing for gpumerge: run nvcc as it is
};

struct Command {
  std::vector<Arg> Args;
  /// The indices in Args of CUDA sources (.cu, or any C/C++ source under
  /// `-x cu`).
  std::vector<size_t> CudaSources;
  Action What = Action::PassThrough;
  /// Why it is passed through ("--version", "no CUDA source", ...).
  std::string PassThroughReason;

  /// The flags a Clang parse of the sources needs: -D, -U, -I, -isystem,
  /// -include and -std from the command line and from -Xcompiler, in order.
  /// Relative paths are made absolute against \p BaseDir when it is given
  /// (a compile_commands.json entry's directory).
  std::vector<std::string> clangArgs(llvm::StringRef BaseDir = "") const;

  /// The architecture numbers named by -arch, -code and -gencode (90 for
  /// sm_90, compute_90, sm_90a, lto_90), sorted and unique.
  std::vector<unsigned> architectures() const;
  /// -arch=all, all-major or native: the build's architectures cannot be
  /// read from the command line. Empty when no such value is given.
  std::string symbolicArchitecture() const;

  /// The -Xgpumerge values, in order.
  std::vector<std::string> gpumergeOptions() const;

  /// The value of the last option \p Long ("compiler-bindir"), if given.
  std::optional<std::string> lastValue(llvm::StringRef Long) const;
  bool has(llvm::StringRef Long) const;

  /// The command line for the real nvcc: every argument as written, with the
  /// inputs at the indices of \p Replace spelled as the paths given there,
  /// and without -Xgpumerge. An options file holding a replaced input or a
  /// -Xgpumerge is read in place; others stay options files.
  std::vector<std::string>
  nvccArgs(const std::map<size_t, std::string> &Replace = {}) const;
};

/// Reads \p Argv (without the program name) as nvcc would. \p WorkDir
/// resolves relative options files ("" : the current directory). Errors: an
/// options file that cannot be read, or an option missing its value.
llvm::Expected<Command> parseCommand(llvm::ArrayRef<std::string> Argv,
                                     llvm::StringRef WorkDir = "");

/// Does \p Path name a C/C++ or CUDA source (by extension) that `-x cu`
/// makes CUDA?
bool isSourceFile(llvm::StringRef Path);

} // namespace nvcc
} // namespace gpumerge

#endif

//===- LaunchChecks.h - The checks both launch flavors write ----*- C++ -*-===//
//
// The CUDA launcher and the OpenCL NDRange helper (Launcher.h) check the
// same things, in the same order, from the same plan: the naive domain and
// its whole tiles, that the grid fits, the preconditions, alignment and
// disjoint arrays. Only the spelling differs (host C++ with dim3 and
// pointers vs. C with size_t arrays and uintptr_t addresses), so both are
// written by one LaunchChecks with a Flavor:
//
//   const long long extent_x = (long long)w;
//   const long long blocks_x = extent_x / 32;
//   bool ok = true;              // int ok = 1; in C
//   // Each block of mm computes a 32 x 32 tile ...
//   ok = ok && blocks_x > 0;
//   ...
//
// Internal to lib/CodeGen.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_LAUNCHCHECKS_H
#define GPUMERGE_CODEGEN_LAUNCHCHECKS_H

#include "CodeGen/EdgeKernel.h"
#include "IR/Kernel.h"

#include <array>
#include <set>
#include <string>

namespace gpumerge {

/// \p E with the naive launch's threads (IR/LaunchThreads.h) spelled as
/// \p Threads says, per naive dimension.
ExprPtr bindLaunchThreads(const Expr &E,
                          const std::array<std::string, 2> &Threads);

/// \p E with every integer parameter cast to long long, so products such as
/// w * k do not overflow int in launch code; the naive launch's threads,
/// where \p Threads binds them, spelled as it says.
std::string widened(const Function &F, const Expr &E,
                    const std::array<std::string, 2> *Threads = nullptr);

/// Host C++ of a CUDA launcher, or C of an OpenCL NDRange helper.
enum class Flavor { Cuda, C };

/// Names of the generated code's parameters and locals, renamed (with
/// trailing underscores) where a kernel parameter has the same name.
struct LocalNames {
  std::string Grid, Block, Smem, Stream, NaiveGlobal, Global, Local, Ok;
  std::string Extent[2], Blocks[2], Layers;

  explicit LocalNames(const Function &F);

  /// What the naive launch covers in naive dimension \p D, as a long long:
  /// grid * block (CUDA), the naive global size (an NDRange helper).
  std::string naiveThreads(unsigned D, Flavor Fl) const;
  /// The element count \p E of an array, as launch code of \p Fl spells it.
  std::string elements(const Function &F, const Expr &E, Flavor Fl) const;
};

/// The checks of a plan, as statements setting `ok`, for either flavor.
class LaunchChecks {
public:
  LaunchChecks(const Function &F, Flavor Fl) : F(F), P(*F.Plan), Fl(Fl), N(F) {}

  /// Declarations of the extents and blocks, `ok` and its checks.
  void emit(std::string &Out);

  const LocalNames &names() const { return N; }
  EdgeLocals edgeLocals() const;
  /// Launched over the layers of a 3-D grid, one per block in Z.
  bool layered() const { return P.Layered && !P.SameLaunch; }

  /// Names the checks read, so the C flavor can mark the others unused.
  std::set<std::string> usedNames() const;

private:
  const Function &F;
  const LaunchPlan &P;
  Flavor Fl;
  LocalNames N;

  void comment(std::string &Out, const std::string &Text);
  void check(std::string &Out, const std::string &Cond);

  /// What the naive launch covers in \p D, as a long long.
  std::string naiveThreads(unsigned D) const { return N.naiveThreads(D, Fl); }

  /// An element count: the naive launch's threads are the extent declared
  /// where the plan's domain is what the launch covers.
  std::string elements(const Expr &E) const;

  bool roundsUp(unsigned D) const { return P.GuardsDomain && P.Extent[D]; }

  void emitDomain(std::string &Out);
  void emitTiles(std::string &Out);

  /// Bytes of one element (a scalar or vector, also for a pointer to rows)
  /// of array parameter \p A: Elements counts those.
  std::string elementBytes(const std::string &A) const;
  std::string address(const std::string &A) const {
    return Fl == Flavor::Cuda ? "(const char *)" + A : A;
  }
  /// The local holding the bytes of array \p A.
  std::string bytes(const std::string &A) const {
    return nameBesideParams(F, A + "_bytes");
  }
};

} // namespace gpumerge

#endif

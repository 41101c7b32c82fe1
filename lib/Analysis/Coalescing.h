//===- Coalescing.h - Is an access coalesced on a target? -------*- C++ -*-===//
//
// §3.2 of the paper, driven by the machine description:
// - GT200-class (CoalescedThread < ThreadInWarp, a half-warp): the 16
//   threads' addresses must fall in one aligned segment, base aligned to it,
//   offsets 0..15 words (the paper's rule; stride 0 is not coalesced).
// - Fermi and later (a whole warp): count the 32-byte sectors the warp
//   touches; coalesced when that is the minimum for the bytes it needs
//   (stride 0 is a broadcast: one sector).
// Symbolic strides and offsets (row widths w) are assumed multiples of the
// segment, as the paper assumes; the launcher checks that at run time.
// With a loop iterator in the index the first 16 iterations are checked.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_COALESCING_H
#define GPUMERGE_ANALYSIS_COALESCING_H

#include "Analysis/Accesses.h"
#include "Target/MachineDescription.h"

namespace gpumerge {

enum class Tristate { False, True, Unknown };
const char *tristateName(Tristate T);

struct CoalescingResult {
  Tristate Coalesced = Tristate::Unknown;
  std::string Reason; ///< why not, in words
  /// The worst case over the checked iterations: memory transactions (GT200
  /// segments or sectors) for one group of threads, and the fewest possible.
  unsigned Transactions = 0, MinTransactions = 0;
};

CoalescingResult checkCoalescing(const Access &A, const MachineDescription &MD);

/// How far apart, in elements, neighbouring threads in X access \p Index
/// (its coefficient of idx and tidx): a polynomial in size parameters.
AffineForm strideInX(const AffineForm &Index);

/// Which accesses countUncoalesced counts.
enum class AccessKinds { All, Reads, Writes };

/// The accesses of \p F of the kinds \p Which that checkCoalescing finds
/// uncoalesced (False; Unknown does not count).
unsigned countUncoalesced(const Function &F, const MachineDescription &MD,
                          AccessKinds Which = AccessKinds::All);

} // namespace gpumerge

#endif

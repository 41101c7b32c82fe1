//===- BankConflicts.h - Bank conflicts and padding -------------*- C++ -*-===//
//
// docs/design.md, "Bank conflicts and padding" (Baskaran et al. 2007,
// Algorithm 2, corrected). A group of threads (a half-warp with 16 banks on
// GT200, a warp with 32 banks since Fermi: the machine description's
// BankConflictGroup and Banks) touches shared words; the degree of conflict
// is the largest number of distinct words in one bank (one word read by
// several threads is a broadcast and counts once). A tile's row pitch is
// padded by the amount in 0..Banks-1 that minimises the summed degree over
// all its access patterns, the smaller pad on ties.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_BANKCONFLICTS_H
#define GPUMERGE_ANALYSIS_BANKCONFLICTS_H

#include <cstdint>
#include <functional>
#include <vector>

namespace gpumerge {

/// The degree of conflict of one group's word addresses over \p Banks.
unsigned conflictDegree(const std::vector<std::int64_t> &Words, unsigned Banks);

/// The padding of a row of \p Cols words: \p Patterns gives, for a pitch,
/// the word addresses of each access pattern's group.
std::int64_t choosePadding(
    std::int64_t Cols, unsigned Banks,
    const std::function<std::vector<std::vector<std::int64_t>>(std::int64_t)>
        &Patterns);

} // namespace gpumerge

#endif

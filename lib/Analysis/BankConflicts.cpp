//===- BankConflicts.cpp - Shared-memory bank conflicts and padding -------===//
#include "Analysis/BankConflicts.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace gpumerge {

unsigned conflictDegree(const std::vector<std::int64_t> &Words,
                        unsigned Banks) {
  std::map<std::int64_t, std::set<std::int64_t>> PerBank;
  for (std::int64_t W : Words)
    PerBank[((W % Banks) + Banks) % Banks].insert(W);
  unsigned Degree = 1;
  for (const auto &[Bank, Distinct] : PerBank)
    Degree = std::max<unsigned>(Degree, Distinct.size());
  return Degree;
}

std::int64_t choosePadding(
    std::int64_t Cols, unsigned Banks,
    const std::function<std::vector<std::vector<std::int64_t>>(std::int64_t)>
        &Patterns) {
  std::int64_t Best = 0;
  unsigned BestCost = std::numeric_limits<unsigned>::max();
  for (std::int64_t Pad = 0; Pad < std::int64_t(Banks); ++Pad) {
    unsigned Cost = 0;
    for (const std::vector<std::int64_t> &Group : Patterns(Cols + Pad))
      Cost += conflictDegree(Group, Banks);
    if (Cost < BestCost) {
      BestCost = Cost;
      Best = Pad;
    }
  }
  return Best;
}

} // namespace gpumerge

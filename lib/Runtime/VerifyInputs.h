//===- VerifyInputs.h - The pseudo-random inputs verify runs on -*- C++ -*-===//
//
// Both sides of a verify run take the same inputs, made once in gpumerge's
// process from a seed (--verify's runs are repeatable): floats in [-1, 1),
// integers in [-8, 8], the arrays that steer indices from 0 (random values
// below 0 would index before the arrays), and the arrays that steer where
// the kernel writes as permutations, so no two threads write one element.
// Scalar arguments are the sizes where they are named like one, else
// distinct values that are not 0 or 1.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_RUNTIME_VERIFYINPUTS_H
#define GPUMERGE_RUNTIME_VERIFYINPUTS_H

#include "Analysis/Domain.h"
#include "IR/Kernel.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gpumerge {

/// Each parameter's contents, in order (empty for scalars).
using VerifyInputs = std::vector<std::vector<std::uint8_t>>;

/// What steers the inputs' contents: the arrays that steer an index or a
/// loop's range (Indices, filled from 0) and those that steer where the
/// kernels write (Scatters, permutations); both from arraysSteeringIndices
/// and arraysSteeringWrites (Analysis/Accesses.h).
struct InputKinds {
  std::set<std::string> Indices, Scatters;
};

/// The contents of every array of \p Params, \p Extents giving their
/// elements, drawn from \p Seed.
std::shared_ptr<const VerifyInputs>
makeVerifyInputs(const std::vector<Param> &Params,
                 const std::map<std::string, std::int64_t> &Extents,
                 const InputKinds &Kinds, std::uint64_t Seed);

/// The scalar arguments of \p Params (0 for arrays): an integer its size
/// from \p Sizes (0 where none is), a float 1.25, 1.75, ...
std::vector<double> verifyScalars(const std::vector<Param> &Params,
                                  const SizeBindings &Sizes);

} // namespace gpumerge

#endif

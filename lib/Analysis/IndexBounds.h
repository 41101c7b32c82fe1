//===- IndexBounds.h - What values an integer expression takes --*- C++ -*-===//
//
// Verify sizes each input buffer by the largest index the kernel reaches
// (Domain.h, bufferExtents). The affine forms read most indices; a table
// lookup is not affine, but its type often bounds it:
//
//   sbox[state[0]]          // an unsigned char: 0 .. 255
//   lut[(v >> 4) & 0xF]     // 0 .. 15
//   x[(i + k) % n]          // 0 .. n - 1 for i + k >= 0
//
// Here: interval arithmetic over an expression, each leaf bounded by what
// is known of it (a position, a loop iterator or a size by its range, a
// single-assignment local by its definition, anything else by its type).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_ANALYSIS_INDEXBOUNDS_H
#define GPUMERGE_ANALYSIS_INDEXBOUNDS_H

#include "Analysis/Affine.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gpumerge {

struct IndexRange {
  std::int64_t Lo = 0, Hi = 0;
};

/// The values \p E may take: the thread built-ins (by builtinName), loop
/// iterators and sizes that \p Ranges names range over their intervals, the
/// locals \p Ctx defines stand for their definitions, and any other value
/// (an element read, a local assigned twice, a parameter) is bounded by its
/// type, when that is an integer type of 32 bits or fewer. A result past
/// its type's range (a wrapping sum) is that range. Nullopt where nothing
/// bounds E (a 64-bit or floating value, a call).
std::optional<IndexRange>
indexBounds(const Expr &E, const AffineContext &Ctx,
            const std::map<std::string, IndexRange> &Ranges);

} // namespace gpumerge

#endif

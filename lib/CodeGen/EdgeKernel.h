//===- EdgeKernel.h - The domain an optimized kernel's tiles leave -*- C++ -*-//
//
// A tiled kernel computes whole tiles: a block of mm covers 128 x 64
// elements of C. Where the domain is not whole tiles (w = 1000), the launch
// runs the optimized kernel over the tiles that fit, floor(extent / tile)
// blocks per dimension, and <name>_edge over the rest (Yang et al. leave
// this to the user; the launch conditions used to send such sizes to the
// naive kernel whole). <name>_edge is the naive kernel, the plan's Origin,
// with its positions offset and bounded:
//
//   __global__ void mm_edge(..., int k, int edge_x0, int edge_x1,
//                           int edge_y0, int edge_y1) {
//     if (idx + edge_x0 >= edge_x1 || idy + edge_y0 >= edge_y1)
//       return;
//     ... the naive body, idx as idx + edge_x0, idy as idy + edge_y0 ...
//   }
//
// In naive coordinates, with done = blocks * tile per dimension:
//
//   [0, done_x) x [0, done_y)             the optimized kernel
//   [done_x, extent_x) x [0, extent_y)    <name>_edge, the columns right of it
//   [0, done_x) x [done_y, extent_y)      <name>_edge, the rows below it
//
// The naive threads are independent (the passes that tile rely on it), so
// running the three parts one after the other computes what the naive
// launch computes. The launchers (Launcher.h) and --verify run the same
// ranges: edgeRanges() here, and its spelling in CUDA and C below.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_EDGEKERNEL_H
#define GPUMERGE_CODEGEN_EDGEKERNEL_H

#include "IR/Kernel.h"

#include <array>

namespace gpumerge {

/// <name>_edge of \p Optimized, whose plan hasEdges(): its Origin renamed,
/// with two bounds parameters per dimension of the plan appended.
std::unique_ptr<Function> edgeKernel(const Function &Optimized);

/// Threads per block of the edge launches: 32 x 8, or 256 in 1-D.
std::array<std::int64_t, 2> edgeBlock(unsigned Dims);

/// One launch of <name>_edge: naive positions [Begin, End) per dimension.
struct EdgeRange {
  std::array<std::int64_t, 2> Begin = {0, 0}, End = {1, 1};
};

/// The edge launches for a naive domain of \p NaiveDomain threads (naive
/// order, as the guard bounds them): none when the domain is whole tiles.
std::vector<EdgeRange>
edgeRanges(const LaunchPlan &P, const std::array<std::int64_t, 2> &NaiveDomain);

/// The locals a launcher has declared for \p F's plan, by kernel dimension
/// (swapped from the naive one after an interchange): the domain, and the
/// whole tiles in it.
struct EdgeLocals {
  std::array<std::string, 2> Extent, Blocks;
  /// The layers of a 3-D grid (blocks one layer deep); empty in 2-D.
  std::string Layers;
};

/// CUDA statements, indented by \p Indent, that launch <name>_edge on
/// \p Stream over what \p F's tiles leave, with the arguments \p Args.
std::string emitCudaEdgeLaunches(const Function &F, const EdgeLocals &L,
                                 const std::string &Stream,
                                 const std::string &Args, unsigned Indent);

/// The C header's type for the edge launches (see emitOpenCLEdgeRanges).
std::string emitOpenCLEdgesType();

/// C statements, indented by \p Indent, that fill `gpumerge_edges *`
/// \p Edges with the edge launches of \p F's plan.
std::string emitOpenCLEdgeRanges(const Function &F, const EdgeLocals &L,
                                 const std::string &Edges, unsigned Indent);

} // namespace gpumerge

#endif

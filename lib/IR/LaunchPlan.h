//===- LaunchPlan.h - How an optimized kernel is launched -------*- C++ -*-===//
//
// A naive kernel runs one thread per element of its domain with any block
// shape. An optimized kernel is launched differently: blocks of a fixed shape,
// each thread standing for Coverage naive threads per dimension, over the
// domain's whole tiles (<name>_edge computes the rest, CodeGen/EdgeKernel.h),
// and only when its preconditions hold (the domain holds a tile, arrays
// staged through shared memory do not overlap the arrays written, vector
// accesses are aligned). The launchers (CUDA) and NDRange helpers (OpenCL)
// generated from a plan check the preconditions at run time and fall back to
// the original kernel, kept in the output as <name>_naive, when they fail.
// --verify reads the same plan.
//
//   naive:      mm<<<dim3(ceil(w/16), ceil(h/16)), dim3(16, 16)>>>(a, b, c,
//                   w, h, k)
//   plan:       Block (32, 8), Coverage (1, 4), Extent (w, h),
//               Disjoint { a: c, b: c }
//   optimized:  if (w >= 32 && h >= 32 && ...) {
//                 mm<<<dim3(w / 32, h / 32), dim3(32, 8)>>>(a, b, c, w, h, k);
//                 mm_edge<<<...>>>(a, b, c, w, h, k, w / 32 * 32, w, 0, h);
//                 mm_edge<<<...>>>(a, b, c, w, h, k, 0, w / 32 * 32, ...);
//               }
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_LAUNCHPLAN_H
#define GPUMERGE_IR_LAUNCHPLAN_H

#include "IR/Expr.h"

#include <array>
#include <map>
#include <memory>

namespace gpumerge {

struct Function;

/// A condition over the kernel's scalar parameters, with what it protects.
struct Precondition {
  std::shared_ptr<const Expr> Cond; ///< e.g. `k % 4 == 0`
  std::string Why; ///< "a is read as 4-element vectors from an index ..."
};

/// How a CUDA kernel of the texture variant reads its read-only arrays
/// (texture-memory, §3.5): through texture objects (`tex1Dfetch<float>(a_tex,
/// i)`, the launcher creates them over the arrays' linear memory) or the
/// read-only data cache (`__ldg(&a[i])`, sm_35 and later), or plain reads of
/// `const T *__restrict__` parameters, which nvcc compiles to the same
/// read-only loads (LDG.E.CONSTANT) while keeping its address arithmetic
/// (`__ldg` takes each address whole: conv's loop took 137 integer
/// instructions where the plain reads took 46). OpenCL reads them as
/// image1d_buffer_t, and in the restrict form as `const restrict` buffers.
enum class TextureForm { Object, Ldg, Restrict };
const char *textureFormName(TextureForm F);

struct LaunchPlan {
  unsigned Dims = 1;
  /// Threads per block of the optimized kernel.
  std::array<std::int64_t, 2> Block = {1, 1};
  /// Naive threads one optimized thread stands for, per dimension.
  std::array<std::int64_t, 2> Coverage = {1, 1};
  /// The naive domain per dimension, as an expression over scalar
  /// parameters (from the bounds guard, which the optimized kernel drops);
  /// null: the domain is what the naive launch covers (grid * block).
  std::array<std::shared_ptr<const Expr>, 2> Extent;
  /// Besides what the launchers check for themselves: one whole tile in
  /// every dimension (hasEdges), a domain that is not empty (GuardsDomain).
  std::vector<Precondition> Preconditions;
  /// Pairs of array parameters that must not overlap: a read-only array the
  /// kernel keeps in shared memory or registers and an array it writes.
  std::vector<std::pair<std::string, std::string>> Disjoint;
  /// Elements of each array named in Disjoint, over scalar parameters, so
  /// the launcher can compare address ranges.
  std::map<std::string, std::shared_ptr<const Expr>> Elements;
  /// Arrays the kernel reads or writes as vectors (§3.1) and the byte
  /// alignment their base address needs: {"in": 8} for float2 loads.
  std::map<std::string, unsigned> AlignedBytes;
  /// Launched with the naive grid and block as given (Block, Coverage and
  /// Extent unused): only the preconditions differ (scalar replacement).
  bool SameLaunch = false;
  /// The kernel keeps its bounds guard (each merged copy checks its own
  /// position), so the launch rounds the grid up and the extent need not be
  /// divisible by the tile.
  bool GuardsDomain = false;
  /// idx and idy exchanged (§3.3): the kernel's X walks the naive Y
  /// positions and its Y the naive X ones, so Extent, Block and Coverage are
  /// in the kernel's order and Extent[0] bounds the naive Y.
  bool Interchanged = false;
  /// A 3-D grid (the kernel uses idz): blocks one layer deep, launched over
  /// LayerExtent layers, the bound of the naive kernel's z guard over scalar
  /// parameters (null where it has none, or several: then the plan cannot
  /// be launched). A plan that keeps the naive launch (SameLaunch) keeps its
  /// layers too.
  bool Layered = false;
  std::shared_ptr<const Expr> LayerExtent;
  /// Static shared memory of one block, in bytes.
  std::int64_t SharedBytes = 0;
  /// Registers per thread estimated from KIR (ptxas, where available, is
  /// asked by the driver for the report).
  unsigned EstimatedRegisters = 0;
  /// What ptxas reported for the chosen version, when the target's arch is
  /// one nvcc supports ("ptxas sm_90"); empty otherwise.
  std::string PtxasSource;
  unsigned PtxasRegisters = 0;
  unsigned PtxasSpillBytes = 0;
  /// How the kernel was derived, so a later pass can regenerate it with
  /// other factors: the kernel before tiling and merging, and the loop tile.
  std::shared_ptr<const Function> Origin;
  std::int64_t LoopTile = 0;
  /// The rest of the shape it was generated with (Tiling.h's TileShape).
  bool WholeTiles = false, AdjacentX = false, UnrollTile = true;
  /// CUDA's __launch_bounds__(block threads, MinBlocksPerSM) where
  /// nonzero: ptxas then keeps the registers to what that many blocks per
  /// SM allow (async-prefetch).
  unsigned MinBlocksPerSM = 0;
  /// Why later passes must keep the block shape (a write tile sized for
  /// coalescing); empty when they may change it.
  std::string ShapeFixedBy;
  /// Array parameters read through the texture path (texture-memory), in
  /// parameter order; each has an element count in Elements and is in
  /// Disjoint with every array the kernel writes (the texture cache is not
  /// coherent with writes during a launch).
  std::vector<std::string> TextureArrays;
  TextureForm Texture = TextureForm::Object;
  /// Texture arrays the kernel reads only as vectors of this width (float4
  /// fetches, §3.1's texture policy): the texture object or image then has
  /// four channels and a quarter of the elements.
  std::map<std::string, unsigned> TextureVectorWidth;
  /// Texture arrays of the ldg form that the kernel also reads as vectors
  /// (vectorize ran first: the texture variant follows the global one):
  /// __ldg has vector overloads, a one-channel image has not, so OpenCL
  /// reads them as `const restrict` buffers, its read-only path.
  std::vector<std::string> TextureBuffers;
  bool readsThroughTexture(const std::string &Array) const;
  /// Is texture array \p Array, of elements \p Element, an OpenCL image (or
  /// read through a texture object's texels)?
  bool readsAsImage(const std::string &Array, const Type &Element) const;
  /// Read-only array parameters printed `__restrict__` (CUDA) or `restrict`
  /// (OpenCL), in parameter order; each has an element count in Elements
  /// and is in Disjoint with every array the kernel writes, so the compiler
  /// may keep an element in a register across the kernel's stores (the
  /// merged copies' common reads, thread-merge).
  std::vector<std::string> RestrictArrays;
  bool restricts(const std::string &Array) const;
  /// Requires arrays \p A and \p B not to overlap (recorded once, in
  /// either order), with their element counts taken from \p Counts where
  /// the plan has none yet.
  void requireDisjoint(
      const std::string &A, const std::string &B,
      const std::map<std::string, std::shared_ptr<const Expr>> &Counts);
  /// Threads that share one naive thread's loop (split-reduction): each
  /// runs every Lanes-th iteration and the block adds their partial sums.
  /// A block then has Block[0] * Lanes threads in X and covers Block[0]
  /// naive threads; 1 for every other plan.
  std::int64_t Lanes = 1;
  /// An upper bound on the terms of each sum the kernel adds in another
  /// order than the naive thread (split-reduction's loop trip), over the
  /// scalar parameters; null where the kernel keeps the naive order or the
  /// trip has no such bound. Verify widens its floating-point tolerance by
  /// it: the two orders' rounding errors grow with the terms.
  std::shared_ptr<const Expr> ReassociatedTerms;
  /// In Y and Z (where the kernel indexes neither), may the naive launch
  /// have more than one thread: copies of each thread, which leave what one
  /// of them leaves (Analysis/Reruns.h)? The launcher then does not ask for
  /// one thread there.
  std::array<bool, 2> CopiesAllowed = {false, false};
  /// Threads per block of the launch in dimension \p D.
  std::int64_t threads(unsigned D) const {
    return D == 0 ? Block[0] * Lanes : Block[1];
  }
  /// Naive threads per block in dimension \p D: Block[D] * Coverage[D].
  std::int64_t tile(unsigned D) const { return Block[D] * Coverage[D]; }
  /// The naive dimension that the kernel's dimension \p D walks, and the
  /// other way round: swapped when idx and idy were exchanged.
  unsigned naiveDim(unsigned D) const {
    return Interchanged && Dims == 2 ? 1 - D : D;
  }
  /// Does the kernel compute whole tiles only, the launch leaving the rest
  /// of the domain (when it is not whole tiles) to <name>_edge, the naive
  /// kernel with its positions offset (CodeGen/EdgeKernel.h)? So for every
  /// plan that neither keeps the naive launch nor guards its own domain.
  bool hasEdges() const { return !SameLaunch && !GuardsDomain; }
};

/// The name the original kernel keeps in an output that also holds its
/// optimized version: "<name>_naive".
std::string fallbackName(const std::string &Kernel);
/// How a CUDA launcher names the fallback of \p F: fallbackName, or for an
/// instantiation of a template the template itself (`scale<float>`).
std::string fallbackCall(const Function &F);
/// The kernel that computes what the whole tiles of an optimized kernel
/// leave of the domain: "<name>_edge".
std::string edgeName(const std::string &Kernel);
/// How F's CUDA launcher, whose parameters are F's, names \p Kernel in a
/// launch: as it is, or from the global namespace (`::ns::k`) where a
/// parameter has its name and would hide it (HeCBench's zeropoint passes
/// its array zero_point to its kernel zero_point).
std::string launchedName(const Function &F, const std::string &Kernel);

} // namespace gpumerge

#endif

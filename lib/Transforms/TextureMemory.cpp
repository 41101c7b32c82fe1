//===- TextureMemory.cpp - Read-only arrays through the texture path ------===//
//
// texture-memory (§3.5, the texture variant of Fig. 1). Arrays the kernel
// only reads are read through the texture cache. The KIR is unchanged: the
// plan lists the arrays and the form, and the emitters spell the reads
// (Printer::printTextureRead); the launchers set the textures up.
//
//   mv before:
//     __global__ void mv(const float *a, const float *x, float *y, ...)
//       sum += a[i * w + j] * x[j];
//
//   after, CUDA object form (gtx285):
//     __global__ void mv(cudaTextureObject_t a_tex, cudaTextureObject_t x_tex,
//                        float *y, ...)
//       sum += tex1Dfetch<float>(a_tex, i * w + j) *
//              tex1Dfetch<float>(x_tex, j);
//
//   after, ldg form (sm_35 and later: h100):
//     __global__ void mv(const float *__restrict__ a,
//                        const float *__restrict__ x, float *y, ...)
//       sum += __ldg(&a[i * w + j]) * __ldg(&x[j]);
//
//   after, OpenCL (mv.cl; an image in either form):
//     __kernel void mv(__read_only image1d_buffer_t a_img,
//                      __read_only image1d_buffer_t x_img, __global float *y,
//                      ...)
//       sum += read_imagef(a_img, i * w + j).x * read_imagef(x_img, j).x;
//
// An array qualifies when it is a global array parameter the kernel never
// writes, reads only by indexing (never passes it on), whose element count
// is known symbolically (the texture object and the image need their size,
// and the launcher checks it does not overlap the arrays written: the
// texture cache is not coherent with writes during a launch). Element
// types: float, int and unsigned int in every form; other scalars (double)
// only in the ldg form, where OpenCL reads them as `const restrict`
// buffers, since neither tex1Dfetch nor an image has a double format.
//
// Where the texture variant follows the global one (sm_35 and later,
// textureFollowsGlobal), the pass runs last, on the global variant's kernel,
// in the restrict form: the arrays are `const T *__restrict__` parameters
// read plainly, which nvcc compiles to the same read-only loads as __ldg
// (LDG.E.CONSTANT) but with its address arithmetic folded into the loads
// (h100, conv's loop: 416 instructions, where __ldg's took 560); OpenCL
// reads them as `const restrict` buffers, which NVIDIA's compiler loads the
// same way. Arrays staged through shared memory are read that way where
// their tiles are filled, except by cp.async, which copies by address. In
// the ldg form (--texture=ldg) an array that vectorize reads as
// float2/float4 takes __ldg's vector overloads, and in OpenCL is a `const
// restrict` buffer (an image of one channel fetches single elements); in
// the object form it stays a global read. The report says which arrays
// stay global reads, and why.
//
//===----------------------------------------------------------------------===//
#include "Analysis/Accesses.h"
#include "Analysis/Extents.h"
#include "Transforms/Passes.h"
#include "Transforms/Tiling.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace gpumerge {

TextureForm defaultTextureForm(const MachineDescription &MD) {
  // __ldg needs compute capability 3.5; targets nvcc cannot compile for
  // (GT200, Fermi) and AMD's (where CUDA output stands for the paper's
  // texture fetches) get texture objects.
  unsigned Arch = 0;
  if (llvm::StringRef(MD.SmArch).startswith("sm_") &&
      !llvm::StringRef(MD.SmArch).drop_front(3).getAsInteger(10, Arch) &&
      Arch >= 35)
    return TextureForm::Ldg;
  return TextureForm::Object;
}

namespace {

/// Has CUDA's __ldg an overload for vector \p E (float4, uchar2, double2;
/// not the 3-vectors, long2 or double4)?
bool ldgReadsVector(const Type &E) {
  if (E.VectorWidth != 2 && E.VectorWidth != 4)
    return false;
  switch (E.Scalar) {
  case ScalarKind::Char:
  case ScalarKind::UChar:
  case ScalarKind::Short:
  case ScalarKind::UShort:
  case ScalarKind::Int:
  case ScalarKind::UInt:
  case ScalarKind::Float:
    return true;
  case ScalarKind::Double:
    return E.VectorWidth == 2;
  default:
    return false;
  }
}

/// Why array parameter \p P of \p F cannot be read through the texture path
/// in form \p Form, or "" when it can. \p Read: arrays F reads.
std::string refusal(const Function &F, const Param &P, TextureForm Form,
                    const std::set<std::string> &Written,
                    const std::set<std::string> &PassedOn) {
  if (P.Ty.Space != AddressSpace::Global)
    return "not in global memory";
  if (Written.count(P.Name))
    return "written by the kernel";
  if (PassedOn.count(P.Name))
    return "passed on as a pointer (only indexed reads can be fetched)";
  if (P.Ty.IsVolatile)
    return "volatile (the texture cache would keep what another agent "
           "writes from it)";
  Type E = P.Ty.element();
  if (!readAsImage(E) && Form != TextureForm::Restrict) {
    if (Form == TextureForm::Object)
      return llvm::formatv("{0} elements: tex1Dfetch and OpenCL images have "
                           "no such format (the ldg form reads them)",
                           scalarName(E.Scalar, E.VectorWidth))
          .str();
    if ((E.VectorWidth != 1 && !ldgReadsVector(E)) ||
        E.Scalar == ScalarKind::Bool || E.Scalar == ScalarKind::Void)
      return scalarName(E.Scalar, E.VectorWidth) +
             " elements are not read through __ldg (it has no such overload)";
  }
  if (!symbolicElements(F, P.Name))
    return "its extent cannot be bounded over the scalar parameters (a "
           "texture needs its size, and the launcher must check it does "
           "not overlap the arrays written)";
  return "";
}

/// The vector types \p F reads each array as (vectorize ran before: the
/// texture variant follows the global one).
std::map<std::string, std::vector<Type>> vectorReads(Function &F) {
  std::map<std::string, std::vector<Type>> Out;
  walkExprs(*F.Body, [&](const Expr &E) {
    if (auto *R = llvm::dyn_cast<ArrayRef>(&E); R && R->VectorWidth > 1)
      Out[R->Array].push_back(R->getType());
  });
  return Out;
}

/// Why the vector reads \p Vectors of an array cannot go through the
/// texture path in form \p Form, or "" when they can: __ldg has float2 and
/// float4 overloads (OpenCL then reads the array as a `const restrict`
/// buffer); a texture object of one channel fetches single elements.
std::string vectorRefusal(const std::vector<Type> &Vectors, TextureForm Form) {
  if (Vectors.empty() || Form == TextureForm::Restrict)
    return "";
  if (Form == TextureForm::Object)
    return "read as vectors by vectorize (a texture object of one channel "
           "fetches single elements)";
  for (const Type &V : Vectors)
    if (!ldgReadsVector(V))
      return "read as " + scalarName(V.Scalar, V.VectorWidth) +
             " by vectorize (__ldg has no such overload)";
  return "";
}

/// The arrays \p F copies asynchronously (cp.async) into shared memory.
std::set<std::string> asyncCopySources(Function &F) {
  std::set<std::string> Out;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(&S); A && A->Async)
      if (auto *R = llvm::dyn_cast<ArrayRef>(A->RHS.get()))
        Out.insert(R->Array);
  });
  return Out;
}

} // namespace

PassInfo textureMemoryPass() {
  return {
      "texture-memory",
      "read-only arrays read through the texture cache: texture objects or "
      "__ldg in CUDA, images in OpenCL (§3.5)",
      [](Function &F, const PassContext &Ctx,
         std::string &Why) -> llvm::Expected<std::optional<AppliedPass>> {
        const Function &Origin = tilingOrigin(F);
        // A texture variant that follows the global one reads plainly
        // through `const __restrict__` (TextureForm::Restrict).
        TextureForm Form = Ctx.Texture          ? *Ctx.Texture
                           : Ctx.paperTexture() ? defaultTextureForm(Ctx.Target)
                                                : TextureForm::Restrict;
        // Varying: arrays some thread reads at its own position. A kernel
        // whose read-only arrays are all read alike by every thread gains
        // nothing (strsm's l[i*n + j]: measured on an H200, its __ldg form
        // ran at 0.67x naive, nvcc unrolling it less).
        std::set<std::string> Read, Written, Varying;
        for (const Access &A : collectAccesses(Origin)) {
          (A.IsWrite ? Written : Read).insert(A.Array);
          if (!A.IsWrite &&
              (!A.Index || A.Index->mentions(AffineVar::Kind::Thread)))
            Varying.insert(A.Array);
        }
        // Split-reduction's lanes each read their own element (rd's
        // partial[j], alike in its one naive thread).
        bool Lanes = F.Plan && F.Plan->Lanes > 1;
        // An array named other than as an indexed access (a helper's
        // argument) is used as a pointer.
        std::set<std::string> PassedOn = arraysUsedAsPointers(Origin);

        // Arrays cp.async copies into shared memory (async-prefetch, where
        // the texture variant follows the global one) are read by address.
        std::set<std::string> Copied = asyncCopySources(F);
        std::map<std::string, std::vector<Type>> Vectors = vectorReads(F);

        std::vector<std::string> Arrays, Refused;
        for (const Param &P : Origin.Params) {
          if (!P.isArray() || !Read.count(P.Name))
            continue;
          std::string No =
              Copied.count(P.Name)
                  ? "copied into shared memory by cp.async, which reads "
                    "global memory by address"
                  : vectorRefusal(Vectors[P.Name], Form);
          if (No.empty())
            No = refusal(Origin, P, Form, Written, PassedOn);
          if (No.empty())
            Arrays.push_back(P.Name);
          else if (!Written.count(P.Name))
            Refused.push_back(P.Name + ": " + No);
        }
        if (Form != TextureForm::Object && !Lanes && !Arrays.empty() &&
            llvm::none_of(Arrays, [&](const std::string &A) {
              return Varying.count(A);
            })) {
          Why = "every read-only array (" + llvm::join(Arrays, ", ") +
                ") is read alike by all threads of a warp: broadcasts, "
                "which the L1 cache of an sm_35+ GPU serves as well";
          return std::nullopt;
        }
        if (Arrays.empty()) {
          Why = Refused.empty()
                    ? "the kernel reads no array it does not also write"
                    : "no read-only array can be read through textures (" +
                          llvm::join(Refused, "; ") + ")";
          return std::nullopt;
        }
        // Each texture array must not overlap an array written.
        for (const std::string &W : Written)
          if (!symbolicElements(Origin, W)) {
            Why = "the extent of '" + W +
                  "', which the kernel writes, cannot be bounded over the "
                  "scalar parameters, so the launcher could not check that "
                  "the arrays read through textures do not overlap it";
            return std::nullopt;
          }

        LaunchPlan &Plan = sameLaunchPlan(F);
        Plan.Texture = Form;
        Plan.TextureArrays = Arrays;
        for (const std::string &A : Arrays)
          if (!Vectors[A].empty() &&
              readAsImage(Origin.findParam(A)->Ty.element()))
            Plan.TextureBuffers.push_back(A);
        auto Need = [&](const std::string &A) {
          if (!Plan.Elements.count(A))
            Plan.Elements[A] =
                std::shared_ptr<const Expr>(symbolicElements(Origin, A));
        };
        for (const std::string &T : Arrays) {
          Need(T);
          for (const std::string &W : Written) {
            Need(W);
            Plan.requireDisjoint(T, W, {});
          }
        }

        AppliedPass P{"texture-memory", {}};
        P.Parameters["form"] = textureFormName(Form);
        P.Parameters["form-chosen-by"] =
            Ctx.Texture ? "--texture"
            : Form == TextureForm::Restrict
                ? "default for " + Ctx.Target.Name +
                      "'s texture variant, the global one read through "
                      "const __restrict__ (nvcc's read-only loads, "
                      "LDG.E.CONSTANT)"
            : Form == TextureForm::Ldg
                ? "default for " + Ctx.Target.Name + " (" + Ctx.Target.SmArch +
                      " has __ldg)"
                : "default for " + Ctx.Target.Name + " (no __ldg before sm_35)";
        P.Parameters["arrays"] = llvm::join(Arrays, ", ");
        std::vector<std::string> Images, Buffers;
        for (const std::string &A : Arrays)
          (Plan.readsAsImage(A, Origin.findParam(A)->Ty.element()) ? Images
                                                                   : Buffers)
              .push_back(A);
        P.Parameters["opencl"] =
            "image1d_buffer_t: " +
            (Images.empty() ? std::string("none") : llvm::join(Images, ", ")) +
            (Buffers.empty()
                 ? ""
                 : "; const restrict buffers: " + llvm::join(Buffers, ", "));
        if (!Refused.empty())
          P.Parameters["not-through-texture"] = llvm::join(Refused, "; ");
        return P;
      },
      /*KeepsThreadBuiltins=*/true};
}

} // namespace gpumerge

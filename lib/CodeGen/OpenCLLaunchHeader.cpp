//===- OpenCLLaunchHeader.cpp - NDRange helpers for an OpenCL host --------===//
//
// FILE.global.h / FILE.texture.h beside an OpenCL output (Launcher.h): per
// planned kernel, gpumerge_<name>_ndrange() with the plan's checks
// (LaunchChecks) and the optimized NDRange and edges, and for the texture
// variant gpumerge_<name>_images(), the images over the buffers it reads.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/EdgeKernel.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/LaunchChecks.h"
#include "CodeGen/Launcher.h"
#include "CodeGen/PhasedLaunch.h"
#include "IR/LaunchThreads.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

namespace gpumerge {

/// The C type of a scalar kernel argument as the host passes it.
static const char *hostCType(ScalarKind K) {
  switch (K) {
  case ScalarKind::Bool:
  case ScalarKind::Int:
    return "int";
  case ScalarKind::Char:
    return "signed char";
  case ScalarKind::UChar:
    return "unsigned char";
  case ScalarKind::Short:
    return "short";
  case ScalarKind::UShort:
    return "unsigned short";
  case ScalarKind::UInt:
    return "unsigned int";
  case ScalarKind::Long:
    return "int64_t"; // cl_long
  case ScalarKind::ULong:
    return "uint64_t";
  case ScalarKind::Float:
  case ScalarKind::Half: // the OpenCL kernel's float (OpenCLEmitter.h)
  case ScalarKind::BFloat16:
    return "float";
  case ScalarKind::Double:
    return "double";
  case ScalarKind::Void:
    break;
  }
  return "int";
}

static std::string openCLNDRange(const Function &F) {
  const LaunchPlan &P = *F.Plan;
  LaunchChecks Checks(F, Flavor::C);
  const LocalNames &N = Checks.names();
  // A 3-D kernel's helper takes the NDRange's three dimensions.
  const unsigned Rank = Checks.layered() ? 3 : 2;
  const std::string Dims = "[" + std::to_string(Rank) + "]";
  std::vector<std::string> Params = {"const size_t " + N.NaiveGlobal + Dims};
  for (const Param &Prm : F.Params)
    if (!Prm.isArray() && Prm.Ty.VectorWidth == 1)
      Params.push_back(std::string(hostCType(Prm.Ty.Scalar)) + " " + Prm.Name);
  for (const Param &Prm : F.Params)
    if (Prm.isArray())
      Params.push_back("uintptr_t " + Prm.Name);
  Params.push_back("size_t " + N.Global + Dims);
  Params.push_back("size_t " + N.Local + Dims);
  const bool Edges = P.hasEdges();
  const std::string EdgesOut = nameBesideParams(F, "edges");
  if (Edges)
    Params.push_back("gpumerge_edges *" + EdgesOut);

  std::string Out;
  if (P.SameLaunch)
    emitLine(Out, 0,
             llvm::formatv("// {0}: the naive NDRange, under the checks "
                           "below.",
                           F.Name)
                 .str());
  else if (P.Lanes > 1)
    emitLine(Out, 0,
             llvm::formatv("// {0}: work-groups of {1} x 1, {2} work-items "
                           "per element of the naive domain.",
                           F.Name, P.threads(0), P.Lanes)
                 .str());
  else
    emitLine(Out, 0,
             llvm::formatv("// {0}: work-groups of {1} x {2}, each work-item "
                           "{3} x {4} elements of the naive domain.",
                           F.Name, P.Block[0], P.Block[1], P.Coverage[0],
                           P.Coverage[1])
                 .str());
  if (Edges)
    emitLine(Out, 0,
             llvm::formatv("// Where it returns 1, {0} computes what {1}'s "
                           "whole tiles leave: enqueue it after {1} as {2} "
                           "says (gpumerge_edges).",
                           edgeName(F.Name), F.Name, EdgesOut)
                 .str());
  emitLine(Out, 0,
           "static inline int gpumerge_" + F.Name + "_ndrange(" +
               llvm::join(Params, ", ") + ") {");
  Checks.emit(Out);
  std::set<std::string> Used = Checks.usedNames();
  for (const Param &Prm : F.Params)
    if (!Used.count(Prm.Name) && (Prm.isArray() || Prm.Ty.VectorWidth == 1))
      emitLine(Out, 2, "(void)" + Prm.Name + "; // not needed by the checks");
  if (P.SameLaunch) {
    emitLine(Out, 2, "// Same NDRange either way; local: the caller's own.");
    for (unsigned D = 0; D < Rank; ++D) {
      emitLine(Out, 2,
               llvm::formatv("{0}[{1}] = {2}[{1}];", N.Global, D, N.NaiveGlobal)
                   .str());
      emitLine(Out, 2, llvm::formatv("{0}[{1}] = 0;", N.Local, D).str());
    }
    emitLine(Out, 2, "return " + N.Ok + ";");
    Out += "}\n";
    return Out;
  }
  emitLine(Out, 2, "if (!" + N.Ok + ") {");
  for (unsigned D = 0; D < Rank; ++D)
    emitLine(Out, 4,
             llvm::formatv("{0}[{1}] = {2}[{1}];", N.Global, D, N.NaiveGlobal)
                 .str());
  emitLine(Out, 4,
           N.Local + "[0] = 0; // the caller's own local size, or NULL");
  for (unsigned D = 1; D < Rank; ++D)
    emitLine(Out, 4, llvm::formatv("{0}[{1}] = 0;", N.Local, D).str());
  if (Edges)
    emitLine(Out, 4, EdgesOut + "->count = 0;");
  emitLine(Out, 4, "return 0;");
  emitLine(Out, 2, "}");
  for (unsigned D = 0; D < 2; ++D) {
    if (D < P.Dims)
      emitLine(Out, 2,
               llvm::formatv("{0}[{1}] = (size_t){2} * {3};", N.Global, D,
                             N.Blocks[D], P.threads(D))
                   .str());
    else
      emitLine(Out, 2, llvm::formatv("{0}[{1}] = 1;", N.Global, D).str());
    emitLine(Out, 2,
             llvm::formatv("{0}[{1}] = {2};", N.Local, D, P.threads(D)).str());
  }
  if (Rank == 3) {
    emitLine(Out, 2,
             llvm::formatv("{0}[2] = (size_t){1};", N.Global, N.Layers).str());
    emitLine(Out, 2, N.Local + "[2] = 1;");
  }
  if (Edges)
    Out += emitOpenCLEdgeRanges(F, Checks.edgeLocals(), EdgesOut, 2);
  emitLine(Out, 2, "return 1;");
  Out += "}\n";
  return Out;
}

/// The arrays of \p F read as images (texture-memory; float, int and
/// unsigned int arrays).
static std::vector<std::string> imageArrays(const Function &F) {
  std::vector<std::string> Out;
  if (F.Plan)
    for (const std::string &A : F.Plan->TextureArrays)
      if (const Param *P = F.findParam(A))
        if (F.Plan->readsAsImage(A, P->Ty.element()))
          Out.push_back(A);
  return Out;
}

/// gpumerge_<name>_images(): the images over the buffers that the texture
/// variant's kernel reads (clCreateImage, CL_MEM_OBJECT_IMAGE1D_BUFFER,
/// CL_R), or 0 when one cannot be made (too many elements for
/// CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, no image support): then <name>_naive,
/// which reads the buffers, must run.
static std::string openCLImages(const Function &F) {
  std::vector<std::string> Arrays = imageArrays(F);
  auto Fresh = [&](std::string N) { return nameBesideParams(F, std::move(N)); };
  std::string Context = Fresh("context"), Device = Fresh("device"),
              Err = Fresh("err"), Max = Fresh("max_width"),
              Format = Fresh("format"), Desc = Fresh("desc"),
              Width = Fresh("width");
  std::vector<std::string> Params = {"cl_context " + Context,
                                     "cl_device_id " + Device};
  // A kernel without a guard reads as far as its NDRange reaches
  // (IR/LaunchThreads.h): the helper then takes the naive global size too.
  LocalNames N(F);
  bool Launch = false;
  for (const std::string &A : Arrays)
    walkExpr(*F.Plan->Elements.at(A), [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Launch |= launchThreadsDim(V->Name).has_value();
    });
  if (Launch)
    Params.push_back("const size_t *" + N.NaiveGlobal);
  for (const Param &Prm : F.Params)
    if (!Prm.isArray() && Prm.Ty.VectorWidth == 1)
      Params.push_back(std::string(hostCType(Prm.Ty.Scalar)) + " " + Prm.Name);
  for (const std::string &A : Arrays)
    Params.push_back("cl_mem " + A);
  for (const std::string &A : Arrays)
    Params.push_back("cl_mem *" + textureParamName(F, A, Language::OpenCL));
  std::set<std::string> Used;
  for (const std::string &A : Arrays)
    walkExpr(*F.Plan->Elements.at(A), [&](const Expr &X) {
      if (auto *V = llvm::dyn_cast<VarRef>(&X))
        Used.insert(V->Name);
    });

  std::string Out;
  emitLine(Out, 0,
           "// " + F.Name + " reads " + llvm::join(Arrays, ", ") +
               " as image1d_buffer_t: the images over those buffers, or 0 "
               "(and no image) when one cannot be made; then " +
               fallbackName(F.Name) +
               ", which reads the buffers, must run. "
               "Release the images after the kernel has run.");
  emitLine(Out, 0,
           "static inline int gpumerge_" + F.Name + "_images(" +
               llvm::join(Params, ", ") + ") {");
  emitLine(Out, 2, "cl_int " + Err + " = CL_SUCCESS;");
  emitLine(Out, 2, "size_t " + Max + " = 0;");
  emitLine(Out, 2, "cl_image_format " + Format + ";");
  emitLine(Out, 2, "cl_image_desc " + Desc + ";");
  for (const Param &Prm : F.Params)
    if (!Prm.isArray() && Prm.Ty.VectorWidth == 1 && !Used.count(Prm.Name))
      emitLine(Out, 2, "(void)" + Prm.Name + "; // not needed for the sizes");
  for (const std::string &A : Arrays)
    emitLine(Out, 2,
             "*" + textureParamName(F, A, Language::OpenCL) + " = NULL;");
  emitLine(Out, 2,
           "if (clGetDeviceInfo(" + Device +
               ", CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof(" + Max + "), &" +
               Max + ", NULL) != CL_SUCCESS)");
  emitLine(Out, 4, "return 0;");
  for (const std::string &A : Arrays) {
    const Param *P = F.findParam(A);
    std::string Img = textureParamName(F, A, Language::OpenCL);
    ScalarKind K = P->Ty.Scalar;
    std::array<std::string, 2> Threads = {N.NaiveGlobal + "[0]",
                                          N.NaiveGlobal + "[1]"};
    emitLine(Out, 2,
             "// " + A + ": " +
                 printExprDebug(
                     *bindLaunchThreads(*F.Plan->Elements.at(A), Threads)) +
                 " elements.");
    emitLine(Out, 2, "{");
    emitLine(Out, 4,
             "const long long " + Width + " = (long long)(" +
                 N.elements(F, *F.Plan->Elements.at(A), Flavor::C) + ")" +
                 (F.Plan->TextureVectorWidth.count(A) ? " / 4;" : ";"));
    emitLine(Out, 4,
             "if (" + Width + " <= 0 || (unsigned long long)" + Width +
                 " > (unsigned long long)" + Max + ")");
    emitLine(Out, 6, "goto fail;");
    if (F.Plan->TextureVectorWidth.count(A))
      emitLine(Out, 4, "// Read as 4-vectors: RGBA texels, a quarter as many.");
    emitLine(Out, 4,
             Format + ".image_channel_order = " +
                 (F.Plan->TextureVectorWidth.count(A) ? "CL_RGBA;" : "CL_R;"));
    emitLine(Out, 4,
             Format + ".image_channel_data_type = " +
                 (K == ScalarKind::Float ? "CL_FLOAT"
                  : K == ScalarKind::Int ? "CL_SIGNED_INT32"
                                         : "CL_UNSIGNED_INT32") +
                 ";");
    emitLine(Out, 4, "memset(&" + Desc + ", 0, sizeof(" + Desc + "));");
    emitLine(Out, 4, Desc + ".image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;");
    emitLine(Out, 4, Desc + ".image_width = (size_t)" + Width + ";");
    emitLine(Out, 4, Desc + ".buffer = " + A + ";");
    emitLine(Out, 4,
             "*" + Img + " = clCreateImage(" + Context +
                 ", CL_MEM_READ_ONLY, &" + Format + ", &" + Desc + ", NULL, &" +
                 Err + ");");
    emitLine(Out, 4, "if (" + Err + " != CL_SUCCESS) {");
    emitLine(Out, 6, "*" + Img + " = NULL;");
    emitLine(Out, 6, "goto fail;");
    emitLine(Out, 4, "}");
    emitLine(Out, 2, "}");
  }
  emitLine(Out, 2, "return 1;");
  Out += "fail:\n";
  for (const std::string &A : Arrays) {
    std::string Img = textureParamName(F, A, Language::OpenCL);
    emitLine(Out, 2, "if (*" + Img + ")");
    emitLine(Out, 4, "clReleaseMemObject(*" + Img + ");");
    emitLine(Out, 2, "*" + Img + " = NULL;");
  }
  emitLine(Out, 2, "return 0;");
  Out += "}\n";
  return Out;
}

std::string emitOpenCLLaunchHeader(
    const Module &M,
    const std::map<std::string, const Function *> &Replacements) {
  std::vector<const Function *> Planned;
  for (const Function *F : M.kernels()) {
    auto It = Replacements.find(F->Name);
    if (It != Replacements.end() && It->second->Plan &&
        launchPlanProblem(M, *It->second, Language::OpenCL).empty())
      Planned.push_back(It->second);
  }
  if (Planned.empty() && M.Phased.empty())
    return "";
  std::string Stem = llvm::sys::path::stem(M.FileName).str();
  std::string Guard = "GPUMERGE_";
  for (char C : Stem)
    Guard += llvm::isAlnum(C) ? llvm::toUpper(C) : '_';
  Guard += "_LAUNCH_H";

  std::string Out;
  emitLine(Out, 0,
           "// Generated by gpumerge from " +
               llvm::sys::path::filename(M.FileName).str() +
               ": NDRange helpers for the host of the OpenCL kernels written "
               "beside this header.");
  Out += R"(//
// Each kernel K below is in the .cl file twice: K, optimized for a fixed
// work-group shape and correct only under conditions checked at run time,
// and K_naive, the input's kernel. Both take the same arguments. Where the
// host enqueued K with a global size naive_global, it calls
//
//   size_t global[2], local[2];
//   if (gpumerge_K_ndrange(naive_global, <scalar arguments>,
//                          <buffer addresses>, global, local))
//     enqueue K with work_dim 2, global and local;
//   else
//     enqueue K_naive with global (naive_global, copied) and the local size
//     it used before (local is 0: pass NULL to let the runtime choose);
//
// naive_global: the global size the input enqueued K with ({n, 1} for a
//   one-dimensional launch).
// scalar arguments: K's scalar (non-buffer) arguments, in order.
// buffer addresses: for each buffer argument of K, in order, an address
//   such that two buffers overlap exactly when their byte ranges from these
//   addresses do: the SVM pointer, or a sub-buffer's origin in its parent;
//   for separate cl_mem objects any addresses far enough apart, such as
//   (uintptr_t)i << 40 for the i-th. All 0: unknown, and K_naive runs
//   wherever K needs the buffers disjoint.
// Returns 1 when K may run (global is then a multiple of local), 0 when
// K_naive must. A kernel on a 3-D NDRange (get_global_id(2), its layers)
// takes naive_global, global and local of three elements, and runs with
// work_dim 3.
)";
  bool Images = false, Edges = false;
  for (const Function *F : Planned) {
    Images |= !imageArrays(*F).empty();
    Edges |= F->Plan->hasEdges();
  }
  if (Edges)
    Out += R"(//
// Kernels with tiles: K computes the domain's whole tiles, and K_edge, the
// input's kernel with its positions offset, what they leave. Their helper
// takes a last argument, a gpumerge_edges *, and fills it where it returns
// 1: after K, enqueue K_edge over each range it lists (see the type).
)";
  if (Images)
    Out += R"(//
// Texture variant: a kernel K that reads arrays as images (texture-memory)
// takes an image1d_buffer_t where K_naive takes the buffer. Before enqueuing
// K, call gpumerge_K_images(context, device, <scalar arguments>, <those
// buffers>, <image outputs>) (a kernel without a bounds guard takes the
// naive global size after device, as its NDRange helper does, since its
// arrays reach as far as the NDRange); when it returns 0 (an array has more
// elements than CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, or the device has no
// images), enqueue K_naive as above. Release the images once K has run.
)";
  Out += "#ifndef " + Guard + "\n#define " + Guard + "\n\n";
  Out += "#include <stddef.h>\n#include <stdint.h>\n";
  if (Images)
    Out += "#include <string.h>\n\n#ifndef CL_TARGET_OPENCL_VERSION\n"
           "#define CL_TARGET_OPENCL_VERSION 120\n#endif\n"
           "#include <CL/cl.h>\n";
  if (Edges)
    Out += "\n" + emitOpenCLEdgesType();
  for (const Function *F : Planned) {
    Out += "\n" + openCLNDRange(*F);
    if (!imageArrays(*F).empty())
      Out += "\n" + openCLImages(*F);
  }
  for (const PhasedKernel &PK : M.Phased)
    Out += "\n" + emitOpenCLPhaseTable(PK);
  Out += "\n#endif // " + Guard + "\n";
  return Out;
}

} // namespace gpumerge

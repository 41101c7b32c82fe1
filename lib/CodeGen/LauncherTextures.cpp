//===- LauncherTextures.cpp - Texture objects in the CUDA launcher --------===//
//
// The texture variant's object form (texture-memory) reads its read-only
// arrays through cudaTextureObject_t parameters: the CUDA launcher makes
// one over each array's linear memory when the checks hold, passes it in
// the array's place, and destroys it once the launch is done. An object
// that cannot be made sends the launch to the naive kernel.
//
//===----------------------------------------------------------------------===//
#include "CodeGen/LauncherTextures.h"
#include "CodeGen/Emitter.h"
#include "CodeGen/LaunchChecks.h"

#include "llvm/ADT/StringExtras.h"

namespace gpumerge {

/// Does the optimized kernel take texture objects (texture-memory, object
/// form), which the launcher makes?
bool takesTextureObjects(const Function &F) {
  return F.Plan && F.Plan->Texture == TextureForm::Object &&
         !F.Plan->TextureArrays.empty();
}

/// The arguments of the optimized kernel: the texture objects in place of
/// the arrays they stand for.
std::string optimizedArgumentList(const Function &F) {
  std::vector<std::string> Names;
  for (const Param &P : F.Params)
    Names.push_back(takesTextureObjects(F) &&
                            F.Plan->readsThroughTexture(P.Name)
                        ? textureParamName(F, P.Name, Language::Cuda)
                        : P.Name);
  return llvm::join(Names, ", ");
}

/// Elements of texture array \p A (scalars: a true 2-D array's count is
/// flattened already), as a long long expression over the parameters.
static std::string textureElements(const Function &F, const std::string &A) {
  return "(long long)(" +
         LocalNames(F).elements(F, *F.Plan->Elements.at(A), Flavor::Cuda) + ")";
}

/// The launcher's texture objects (texture-memory, object form): declared,
/// and created over the arrays' linear memory when `ok` still holds; a
/// texture that cannot be made clears `ok`, so the naive kernel runs.
void emitTextureObjects(const Function &F, const std::string &Ok,
                        std::string &Out) {
  const LaunchPlan &P = *F.Plan;
  std::string Device = nameBesideParams(F, "tex_device"),
              MaxLinear = nameBesideParams(F, "tex_max_linear"),
              Align = nameBesideParams(F, "tex_alignment");
  emitLine(Out, 2,
           "// " + F.Name + " reads " + llvm::join(P.TextureArrays, ", ") +
               " through texture objects over their linear memory, made "
               "here and destroyed after the launch; " +
               fallbackCall(F) +
               " runs where one cannot be made (more elements than the "
               "device's maxTexture1DLinear, memory not aligned for "
               "textures, or creation failing).");
  std::vector<std::string> Decls;
  for (const std::string &A : P.TextureArrays)
    Decls.push_back(textureParamName(F, A, Language::Cuda) + " = 0");
  emitLine(Out, 2, "cudaTextureObject_t " + llvm::join(Decls, ", ") + ";");
  emitLine(Out, 2,
           "int " + Device + " = 0, " + MaxLinear + " = 0, " + Align + " = 0;");
  emitLine(Out, 2,
           Ok + " = " + Ok + " && cudaGetDevice(&" + Device +
               ") == cudaSuccess && cudaDeviceGetAttribute(&" + MaxLinear +
               ", cudaDevAttrMaxTexture1DLinearWidth, " + Device +
               ") == cudaSuccess && cudaDeviceGetAttribute(&" + Align +
               ", cudaDevAttrTextureAlignment, " + Device +
               ") == cudaSuccess && " + Align + " > 0;");
  for (const std::string &A : P.TextureArrays) {
    const Param *Prm = F.findParam(A);
    ScalarKind K = Prm->Ty.Scalar;
    // Read as float4 (vectorize): a four-channel object over the whole
    // vectors, a quarter of the elements.
    bool Vec = P.TextureVectorWidth.count(A);
    std::string T = K == ScalarKind::Float ? "float"
                    : K == ScalarKind::Int ? "int"
                                           : "unsigned int";
    if (Vec)
      T = K == ScalarKind::Float ? "float4"
          : K == ScalarKind::Int ? "int4"
                                 : "uint4";
    std::string Tex = textureParamName(F, A, Language::Cuda);
    std::string Elems = nameBesideParams(F, Tex + "_elements");
    std::string Res = nameBesideParams(F, Tex + "_resource"),
                Desc = nameBesideParams(F, Tex + "_description");
    emitLine(Out, 2,
             "const long long " + Elems + " = " + textureElements(F, A) +
                 (Vec ? " / 4;" : ";"));
    emitLine(Out, 2,
             Ok + " = " + Ok + " && " + Elems + " > 0 && " + Elems +
                 " <= (long long)" + MaxLinear + " && (size_t)" + A + " % " +
                 "(size_t)" + Align + " == 0;");
    emitLine(Out, 2, "if (" + Ok + ") {");
    emitLine(Out, 4, "cudaResourceDesc " + Res + " = {};");
    emitLine(Out, 4, Res + ".resType = cudaResourceTypeLinear;");
    emitLine(Out, 4, Res + ".res.linear.devPtr = (void *)" + A + ";");
    emitLine(Out, 4,
             Res + ".res.linear.desc = cudaCreateChannelDesc<" + T + ">();");
    emitLine(Out, 4,
             Res + ".res.linear.sizeInBytes = (size_t)" + Elems + " * sizeof(" +
                 T + ");");
    emitLine(Out, 4, "cudaTextureDesc " + Desc + " = {};");
    emitLine(Out, 4, Desc + ".readMode = cudaReadModeElementType;");
    emitLine(Out, 4,
             Ok + " = cudaCreateTextureObject(&" + Tex + ", &" + Res + ", &" +
                 Desc + ", nullptr) == cudaSuccess;");
    emitLine(Out, 4,
             "// A failure is not the application's error: clear it, and "
             "the naive kernel runs.");
    emitLine(Out, 4, "if (!" + Ok + ")");
    emitLine(Out, 6, "(void)cudaGetLastError();");
    emitLine(Out, 2, "}");
  }
}

/// Destroys the texture objects emitTextureObjects made, once the launch
/// that reads them is done (a texture object must outlive its use).
void emitTextureCleanup(const Function &F, const std::string &Stream,
                        std::string &Out) {
  std::vector<std::string> Made;
  for (const std::string &A : F.Plan->TextureArrays)
    Made.push_back(textureParamName(F, A, Language::Cuda));
  emitLine(Out, 2,
           "// Texture objects must outlive the kernel reading them: wait for "
           "the launch, then destroy those made.");
  emitLine(Out, 2, "if (" + llvm::join(Made, " || ") + ")");
  emitLine(Out, 4, "(void)cudaStreamSynchronize(" + Stream + ");");
  for (const std::string &T : Made) {
    emitLine(Out, 2, "if (" + T + ")");
    emitLine(Out, 4, "(void)cudaDestroyTextureObject(" + T + ");");
  }
}

} // namespace gpumerge

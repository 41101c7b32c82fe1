//===- LauncherTextures.h - Texture objects in the CUDA launcher -*- C++ -*-===//
//
// The object form of the texture variant (texture-memory): the optimized
// kernel takes a cudaTextureObject_t where the input's takes a read-only
// array, and the CUDA launcher (Launcher.h) makes those objects over the
// arrays' linear memory once its checks hold:
//
//   cudaTextureObject_t a_tex = 0;
//   ...
//   ok = ok && a_tex_elements <= (long long)tex_max_linear && ...;
//   if (ok) { ... ok = cudaCreateTextureObject(&a_tex, ...) == cudaSuccess; }
//   if (ok) mm<<<...>>>(a_tex, ...); else mm_naive<<<...>>>(a, ...);
//   ... cudaDestroyTextureObject(a_tex) after the launch
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_LAUNCHERTEXTURES_H
#define GPUMERGE_CODEGEN_LAUNCHERTEXTURES_H

#include "IR/Kernel.h"

#include <string>

namespace gpumerge {

/// Does the optimized kernel take texture objects (texture-memory, object
/// form), which the launcher makes?
bool takesTextureObjects(const Function &F);

/// The arguments of the optimized kernel: the texture objects in place of
/// the arrays they stand for.
std::string optimizedArgumentList(const Function &F);

/// The launcher's texture objects: declared, and created over the arrays'
/// linear memory when `ok` (the local \p Ok) still holds; a texture that
/// cannot be made clears `ok`, so the naive kernel runs.
void emitTextureObjects(const Function &F, const std::string &Ok,
                        std::string &Out);

/// Destroys the texture objects emitTextureObjects made, once the launch
/// on \p Stream that reads them is done.
void emitTextureCleanup(const Function &F, const std::string &Stream,
                        std::string &Out);

} // namespace gpumerge

#endif

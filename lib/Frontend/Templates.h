//===- Templates.h - Kernel templates and their instantiations --*- C++ -*-===//
//
// Internal to lib/Frontend. A kernel template is optimized per instantiation
// that the file's launches make: `scale<float>` is lowered from Clang's
// instantiation (T is float there) as the kernel `scale_float`, launched by
// gpumerge_launch_scale_float, whose fallback is the template as written.
//
//   template <typename T> __global__ void scale(const T *a, T *b, int n);
//   scale<float><<<g, b>>>(x, y, n);   // and scale<<<g, b>>>(x, y, n)
//     -> kernel scale_float, fallback scale<float>
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_FRONTEND_TEMPLATES_H
#define GPUMERGE_FRONTEND_TEMPLATES_H

#include "clang/AST/Decl.h"

#include <string>

namespace gpumerge {

/// The name gpumerge gives \p FD: its own, or for an instantiation of a
/// function template its name and its template arguments joined by '_'
/// (`scale_float`, `tile_16`, `axpy_unsigned_int`; an integer of another
/// type than int is followed by its type: `tile_16_unsigned_int`); empty
/// when an argument has no such spelling (a pointer, a pack, a template).
std::string kernelInstanceName(const clang::FunctionDecl &FD);

/// `scale<float>`: how CUDA names the instantiation \p FD; empty when
/// \p FD is not an instantiation of a function template.
std::string templateCall(const clang::FunctionDecl &FD);

} // namespace gpumerge

#endif

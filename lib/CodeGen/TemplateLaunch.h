//===- TemplateLaunch.h - Launches left to instantiations ------*- C++ -*-===//
//
// A launch in a function template may leave the kernel template's
// instantiation to the function template's (`scale<<<g, b>>>(x, s, n)` with
// x a `T *`): one text launches scale<float> in one instantiation and
// scale<double> in another, so no one launcher can stand there. It calls the
// kernel template's dispatcher instead, written after the optimized
// instantiations' launchers:
//
//   namespace {
//   template <typename T> struct gpumerge_launch_scale_of {
//     static void launch(dim3 grid, ..., T *x, T s, int n) {
//       scale<T><<<grid, block, smem, stream>>>(x, s, n);   // as written
//     }
//   };
//   template <> struct gpumerge_launch_scale_of<float> {
//     template <typename... Args>
//     static void launch(dim3 grid, ..., Args... args) {
//       gpumerge_launch_scale_float(grid, block, smem, stream, args...);
//     }
//   };
//   } // namespace
//   template <typename T>
//   static void gpumerge_launch_scale(dim3 grid, ..., T *x, T s, int n) {
//     gpumerge_launch_scale_of<T>::launch(grid, block, smem, stream, x, s, n);
//   }
//
// gpumerge_launch_scale has the kernel template's template parameters and
// parameters, so it deduces the instantiation as the launch did; the class
// template picks that instantiation's launch: its launcher where gpumerge
// optimized it, the template as written otherwise. The class is in an
// unnamed namespace: another file of the program may dispatch a kernel
// template of the same name with other specializations.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_CODEGEN_TEMPLATELAUNCH_H
#define GPUMERGE_CODEGEN_TEMPLATELAUNCH_H

#include "IR/Kernel.h"

namespace gpumerge {

/// The dispatcher of \p T, with a specialization for each of \p Optimized:
/// the instantiations of \p T written with their plan and launcher.
std::string
emitCudaTemplateDispatcher(const KernelTemplate &T,
                           const std::vector<const Function *> &Optimized);

/// The names the dispatcher of \p T adds to the file.
std::vector<std::string> templateDispatcherNames(const KernelTemplate &T);

} // namespace gpumerge

#endif

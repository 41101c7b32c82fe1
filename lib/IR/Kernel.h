//===- Kernel.h - KIR functions and modules ---------------------*- C++ -*-===//
//
// A Module is one input file: its kernels and __device__ helpers lowered to
// KIR, plus what the emitters need to write a whole file again (typedefs and
// object-like macros the kernels use, the hints of `#pragma gpumerge`).
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_KERNEL_H
#define GPUMERGE_IR_KERNEL_H

#include "IR/LaunchPlan.h"
#include "IR/Stmt.h"

#include <map>
#include <optional>
#include <set>

namespace gpumerge {

enum class Language { Cuda, OpenCL };
const char *languageName(Language L);

struct Param {
  std::string Name;
  Type Ty;
  /// `float a[M][N]` as declared: M, the extent the parameter loses when it
  /// decays to float (*a)[N] (0 when not declared so). Bounds the array for
  /// the run-time aliasing checks of kernels without a guard (the paper's
  /// dialect).
  std::int64_t DeclaredRows = 0;
  /// Declared `__restrict__` (`restrict`): the input's promise that what
  /// the parameter reaches is reached through no other, which every kernel
  /// printed from it keeps (they access what the input's kernel does).
  bool Restrict = false;
  bool isArray() const { return Ty.IsPointer; }
};

/// Source offsets of a function definition, for in-place rewriting of the
/// input text (host code is kept byte for byte).
struct SourceSpan {
  unsigned Begin = 0, End = 0; ///< [Begin, End) byte offsets in the main file
  unsigned Line = 0;
};

struct Function {
  std::string Name;
  bool IsKernel = true;
  Type ReturnType = Type::scalar(ScalarKind::Void);
  std::vector<Param> Params;
  std::unique_ptr<BlockStmt> Body;
  SourceSpan Span;
  /// The function's name in its definition, when written plainly in the
  /// main file (not made by a macro): the fallback NAME_naive is the
  /// definition as written with this range renamed.
  std::optional<SourceSpan> NameSpan;
  /// The sizes the kernel is expected to run at, for the model only (every
  /// version stays correct at any size): `#pragma gpumerge size(w=4096,
  /// ...)` right before the kernel, over the values every launch in the
  /// host code passes (Frontend/LaunchSizes.h).
  std::map<std::string, std::int64_t> SizeHints;
  /// From `#pragma gpumerge output(c, ...)`.
  std::vector<std::string> OutputHints;
  /// The kernel used the original GPGPU compiler's dialect (bare idx, ...).
  bool PaperDialect = false;
  /// A helper defined in a header of the user's that the input includes
  /// (`common.h`): the output reaches it through that include and never
  /// writes it, a translation does; Span is empty (not the input's text).
  bool Included = false;
  /// An instantiation of a kernel template of the input, as CUDA names it
  /// (`scale<float>`; Name is then `scale_float`). Its fallback is the
  /// template, which the output keeps as written; empty for other kernels.
  std::string TemplateCall;
  /// The named namespaces the input declares the function in, as a
  /// qualifier (`blas::`; empty at file scope or in an anonymous one): the
  /// output keeps the function there, and a program looks it up by the name
  /// so qualified (NVRTC's name expressions).
  std::string Scope;
  /// Threads per block that the input's thread positions assume, per
  /// dimension: `blockIdx.x * 256 + threadIdx.x` reads as idx only where
  /// blockDim.x is 256, which the launcher then checks. 0: none assumed.
  std::array<std::int64_t, 2> FixedBlock = {0, 0};
  /// The input kernel's grid-stride loop, at this line, read as a bounds
  /// guard (Transforms/GridStride.h): the input covers its domain with any
  /// grid, so a launcher does not ask that the user's grid cover it. 0 for
  /// other kernels.
  unsigned GridStrideLine = 0;
  /// A phase of a kernel split at its global barriers (SplitPhases.h): the
  /// input kernel's name, and which phase this is; PhaseOf empty otherwise.
  std::string PhaseOf;
  unsigned PhaseIndex = 0;
  /// The CUDA `__constant__` arrays without an initializer that the kernel
  /// reads (host code fills them, cudaMemcpyToSymbol): in CUDA file-scope
  /// symbols the kernel names, in an OpenCL translation parameters after
  /// its own (`__constant float (*c)[4]`). DeclaredRows and InnerExtents
  /// give the declared size.
  std::vector<Param> ConstantArrays;
  /// A helper the kernel calls, directly or through others, that reads a
  /// thread or block built-in (threadIdx, blockIdx, get_global_id, ...):
  /// its values change under any pass that changes the launch, so only the
  /// passes that keep it run. Empty when there is none.
  std::string PositionHelper;
  /// Another helper of the module has this name (C++ overloads: `float
  /// EXP(float)` beside `double EXP(double)`, vmc's): an OpenCL translation
  /// declares each __attribute__((overloadable)), as OpenCL C needs.
  bool Overloaded = false;
  /// Set by the passes that change how the kernel is launched (block shape,
  /// merges, tiling); absent for a kernel launched like the naive one.
  std::optional<LaunchPlan> Plan;

  const Param *findParam(const std::string &N) const;
  std::unique_ptr<Function> clone() const;
  /// A copy with \p NewBody and no plan: the same name, signature and
  /// hints (for kernels generated from this one).
  std::unique_ptr<Function> withBody(std::unique_ptr<BlockStmt> NewBody) const;
};

/// \p Name, with `_` appended until no parameter of \p F has it: a local of
/// generated host or device code that takes \p F's arguments.
std::string nameBesideParams(const Function &F, std::string Name);

/// The names \p F's parameters, locals and loop iterators take.
std::set<std::string> declaredNames(const Function &F);

/// \p Base, or Base + Sep + N for the first N from \p First that \p Taken
/// does not hold; the name is added to \p Taken.
std::string uniqueName(std::set<std::string> &Taken, const std::string &Base,
                       const std::string &Sep = "", unsigned First = 1);

/// Can an array of \p Element be read as an OpenCL image (CL_R with
/// CL_FLOAT, CL_SIGNED_INT32 or CL_UNSIGNED_INT32) or a CUDA texture object?
/// Scalar float, int and unsigned int; doubles and vectors cannot.
bool readAsImage(const Type &Element);

/// The parameter of the optimized kernel that stands for array \p Array read
/// through the texture path: "a_tex" (CUDA texture object) or "a_img"
/// (OpenCL image), made unique among \p F's parameters.
std::string textureParamName(const Function &F, const std::string &Array,
                             Language L);

/// Does \p F contain a global barrier (gpumerge_global_sync)?
bool hasGlobalSync(const Function &F);

/// Visits the type of every parameter, declaration and expression of \p F
/// (not its return type).
void forEachType(const Function &F,
                 const std::function<void(const Type &)> &Visit);

/// Does \p F copy asynchronously (async-prefetch's PipelineStmts)?
bool hasAsyncCopies(const Function &F);

/// Why a kernel of the input could not be lowered: it is passed through.
struct Unsupported {
  std::string Kernel;
  std::string Construct; ///< "atomicAdd call", "while loop", ...
  unsigned Line = 0;
  SourceSpan Span;
  /// False for a __device__ helper: it is reported as one, not as a kernel.
  bool IsKernel = true;
  /// Passed through because gpumerge crashed on it (a gpumerge bug): the
  /// exit code says so.
  bool InternalError = false;
};

/// A launch `k<<<grid, block[, smem[, stream]]>>>(args)` in host code of the
/// main file, as byte ranges of the source, so the emitter can rewrite it
/// into a call of the generated launcher (docs/design.md, "Launch glue").
struct KernelCallSite {
  /// The kernel's name in the module (`scale_float` for `scale<float>`).
  std::string Kernel;
  SourceSpan Call;   ///< the whole call expression; Line is its line
  SourceSpan Callee; ///< `k` or `ns::k` as written, template arguments not
  /// The name that ends Callee: Kernel, or the template's name.
  std::string Written;
  /// grid, block and, when written, smem and stream.
  std::vector<SourceSpan> Config;
  std::vector<SourceSpan> Args;
  /// Where the kernel's first declaration begins when it is a prototype in
  /// the main file before the definition (a launch may then precede the
  /// definition, and the launcher needs a forward declaration there).
  std::optional<unsigned> PrototypeBegin;
  /// Why the launch cannot be rewritten (in a macro, in device code, the
  /// kernel named without <<<>>>...); empty when it can. Recorded so the
  /// emitter never leaves such a launch on a kernel whose launch changed.
  std::string NotRewritable;
  /// A launch in a function template that leaves the instantiation of a
  /// kernel template to its own (`scale<<<g, b>>>(x, n)` with x a `T *`):
  /// the kernel template's name, a KernelTemplate of the module. The launch
  /// calls the template's dispatcher, and there is one call site per
  /// instantiation that the function template's instantiations launch.
  std::string Template;
  /// `<T, 4>` of `scale<T, 4><<<...>>>`, when the launch writes template
  /// arguments (Template's launches only).
  std::optional<SourceSpan> TemplateArgs;
};

/// A kernel template that function templates launch leaving the
/// instantiation to theirs (KernelCallSite::Template). Its dispatcher,
/// gpumerge_launch_NAME, is a function template with the kernel template's
/// parameters: it deduces the instantiation as the launch did and runs it
/// through its launcher where gpumerge optimized it (TemplateLaunch.h).
struct KernelTemplate {
  std::string Name;   ///< `scale`
  std::string Header; ///< `template <typename T, int B = 4>`, as written
  /// Its template parameters' names, in order (`T`, `B`).
  std::vector<std::string> Arguments;
  /// The kernel's parameters, as written (`const T *__restrict__ a`), and
  /// their names.
  std::vector<std::string> Params, ParamNames;
};

/// A kernel of the input split at its global barriers into phase kernels
/// NAME_phase0, NAME_phase1, ... (ordinary kernels of Module::Functions with
/// the same parameters), launched one after the other (SplitPhases.h).
struct PhasedKernel {
  std::string Name;                   ///< the input's kernel
  std::vector<std::string> Phases;    ///< in launch order
  std::vector<unsigned> BarrierLines; ///< where the kernel was split
  /// Locals re-declared in later phases (recomputed from thread positions
  /// and parameters).
  std::vector<std::string> Recomputed;
  SourceSpan Span; ///< the input kernel's definition
  bool PaperDialect = false;
};

struct Module {
  std::string FileName;
  std::string Source; ///< the whole input text
  Language Lang = Language::Cuda;
  bool HasHostCode = false;
  /// CUDA: the file's device code, its host code left out and the files of
  /// the user's it includes written in place (HostCode.h), for NVRTC.
  std::string DeviceCode;
  std::vector<std::unique_ptr<Function>> Functions; ///< kernels and helpers
  std::vector<Unsupported> PassedThrough;
  /// name → definition text, for typedefs and object-like macros the lowered
  /// functions mention, in source order.
  std::vector<std::pair<std::string, std::string>> Typedefs;
  std::vector<std::pair<std::string, std::string>> Macros;
  /// File-scope constants with an initializer that kernels read, for a
  /// translation to declare again: arrays (`float w[3]` and `{0.25f, 0.5f,
  /// 0.25f}`, as written) and scalars (`int DIM` and `30`, its value).
  struct ConstantDefinition {
    std::string Name;
    Type Element;
    std::vector<std::int64_t> Extents; ///< none for a scalar
    std::string Initializer;
  };
  std::vector<ConstantDefinition> ConstantDefinitions;
  /// Launches and other uses of the kernels in host code, in source order.
  std::vector<KernelCallSite> CallSites;
  /// The kernel templates that CallSites leave to function templates.
  std::vector<KernelTemplate> KernelTemplates;
  /// Kernels split at their global barriers, in source order.
  std::vector<PhasedKernel> Phased;
  /// What the frontend noticed and went on with (host code that does not
  /// compile with the installed toolkit), with file and line.
  std::vector<std::string> Warnings;
  /// kernel name → the name in each of its prototypes in the main file
  /// (declarations without a body), written plainly. A kernel whose
  /// parameters change keeps its input signature only as NAME_naive, so its
  /// prototypes are renamed with it.
  std::map<std::string, std::vector<SourceSpan>> PrototypeNames;
  /// kernel name → "file:line" of a declaration in a header, for kernels
  /// other files can see: they may launch it as written, so its name must
  /// keep meaning the input's kernel.
  std::map<std::string, std::string> DeclaredInHeader;

  /// The text of \p S in the input.
  std::string text(const SourceSpan &S) const {
    return Source.substr(S.Begin, S.End - S.Begin);
  }

  std::vector<Function *> kernels() const;
  /// Does the input text use \p Name as an identifier (not as part of a
  /// longer one)? For names the output would add.
  bool mentions(const std::string &Name) const;
  Function *find(const std::string &Name) const;
  /// Every function named \p Name: one, or a helper's C++ overloads.
  std::vector<const Function *> overloads(const std::string &Name) const;
  /// The names of \p Roots and of the functions of this module they call,
  /// directly or through others (every overload of a name): what a program
  /// of those kernels needs.
  std::set<std::string>
  callClosure(const std::vector<const Function *> &Roots) const;
  /// The helpers \p F calls, directly or through others, in the module's
  /// order (the input's: each defined before its callers).
  std::vector<const Function *> helpersCalled(const Function &F) const;
  const PhasedKernel *findPhased(const std::string &Name) const;
  const KernelTemplate *findTemplate(const std::string &Name) const;
};

} // namespace gpumerge

#endif

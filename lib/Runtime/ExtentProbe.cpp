//===- ExtentProbe.cpp - Array sizes measured where no bound is known -----===//
#include "Runtime/ExtentProbe.h"

#include "Analysis/Accesses.h"
#include "IR/Stmt.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <csignal>

namespace gpumerge {

std::string unprobeable(const Function &F,
                        const std::set<std::string> &Arrays) {
  std::set<std::string> Passed = arraysUsedAsPointers(F);
  for (const std::string &A : Arrays) {
    const Param *P = F.findParam(A);
    if (!P || !P->Ty.IsPointer)
      return "'" + A + "' is not an array parameter";
    if (!P->Ty.InnerExtents.empty())
      return "'" + A + "' is indexed as a multi-dimensional array";
    if (Passed.count(A))
      return "'" + A +
             "' is passed on as a pointer, so not every access "
             "to it is the kernel's own";
  }
  std::string Why;
  walkExprs(*F.Body, [&](const Expr &E) {
    const auto *R = llvm::dyn_cast<ArrayRef>(&E);
    if (R && Arrays.count(R->Array) &&
        (R->Indices.size() != 1 || R->VectorWidth != 1) && Why.empty())
      Why = "'" + R->Array + "' is accessed with several indices";
  });
  return Why;
}

std::unique_ptr<Function>
probedKernel(const Function &F, const std::vector<std::string> &Arrays,
             const std::map<std::string, std::int64_t> &Extents) {
  std::unique_ptr<Function> Out = F.clone();
  const Type Record = Type::pointer(ScalarKind::Int, AddressSpace::Global);
  rewriteExprs(*Out->Body, [&](Expr &E) -> ExprPtr {
    auto *R = llvm::dyn_cast<ArrayRef>(&E);
    if (!R || R->Space != AddressSpace::Global || R->Indices.size() != 1)
      return nullptr;
    auto Slot = llvm::find(Arrays, R->Array);
    if (Slot == Arrays.end())
      return nullptr;
    std::vector<ExprPtr> Args;
    Args.push_back(std::move(R->Indices[0]));
    Args.push_back(std::make_unique<VarRef>(ProbeRecordName, Record));
    Args.push_back(std::make_unique<IntLit>(Slot - Arrays.begin()));
    Args.push_back(std::make_unique<IntLit>(Extents.at(R->Array),
                                            Type::scalar(ScalarKind::Long)));
    R->Indices[0] = std::make_unique<CallExpr>(
        "gpumerge_probe", std::move(Args), Type::scalar(ScalarKind::Int));
    return nullptr;
  });
  Param P;
  P.Name = ProbeRecordName;
  P.Ty = Record;
  Out->Params.push_back(P);
  return Out;
}

const char *probeHelperSource() {
  return "// verify's extent probe (ExtentProbe.h): records the lowest index\n"
         "// and one past the highest, and keeps the access inside the\n"
         "// buffer of n elements.\n"
         "int gpumerge_probe(long i, __global int *r, int k, long n) {\n"
         "  int c = (int)clamp(i, -2147483647L, 2147483646L);\n"
         "  atomic_min(&r[2 * k], c);\n"
         "  atomic_max(&r[2 * k + 1], c + 1);\n"
         "  return (int)clamp(i, 0L, n > 0 ? n - 1 : 0L);\n"
         "}\n";
}

llvm::Expected<std::vector<ProbedRange>>
runExtentProbe(const DeviceRun &Run, const std::string &Probe,
               const std::vector<std::string> &Kernels, size_t Arrays) {
  std::string Output;
  llvm::Error Failed = runIsolated(
      [&](SendFn Send) {
        auto Fail = [&](llvm::Error E) {
          std::string Text = llvm::toString(std::move(E));
          std::replace(Text.begin(), Text.end(), '\n', ' ');
          Send("error " + Text + "\n");
        };
        // OpenCL C, on OpenCL's first device whatever device verify runs
        // on (a GPU's CUDA driver usually brings an OpenCL one).
        auto Session = openSession(DeviceKind::OpenCL, 0);
        if (!Session)
          return Fail(Session.takeError());
        auto Program =
            (*Session)->buildProgram(std::string(probeHelperSource()) + Probe,
                                     Run.BuildOptions, Kernels);
        if (!Program)
          return Fail(Program.takeError());
        for (int Signal : {SIGSEGV, SIGBUS, SIGILL, SIGABRT})
          std::signal(Signal, SIG_DFL);
        std::vector<std::uint8_t> Init(Arrays * 8);
        for (size_t I = 0; I < Arrays; ++I) {
          std::int32_t Lo = INT_MAX, Hi = INT_MIN;
          std::memcpy(Init.data() + 8 * I, &Lo, 4);
          std::memcpy(Init.data() + 8 * I + 4, &Hi, 4);
        }
        auto Record = (*Session)->createBuffer(Init);
        if (!Record)
          return Fail(Record.takeError());
        std::vector<KernelArg> Args;
        const size_t Own = Run.Params.size() - Run.ConstantArrays;
        for (size_t I = 0; I < Run.Params.size(); ++I) {
          if (I == Own)
            Args.push_back(KernelArg::buffer(*Record));
          if (!Run.Params[I].Ty.IsPointer) {
            Args.push_back(scalarArg(Run.Params[I].Ty, Run.Scalars[I]));
            continue;
          }
          auto B = (*Session)->createBuffer((*Run.Inputs)[I]);
          if (!B)
            return Fail(B.takeError());
          Args.push_back(KernelArg::buffer(*B));
        }
        if (Own == Run.Params.size())
          Args.push_back(KernelArg::buffer(*Record));
        for (size_t I = 0; I < Run.Launches.size(); ++I)
          if (auto E = (*Session)->launch(*Program, Kernels[I], Args,
                                          Run.Launches[I].NaiveRange))
            return Fail(std::move(E));
        auto Seen = (*Session)->readBuffer(*Record);
        if (!Seen)
          return Fail(Seen.takeError());
        std::string Line = "probe";
        for (size_t I = 0; I < Arrays * 2; ++I) {
          std::int32_t V;
          std::memcpy(&V, Seen->data() + 4 * I, 4);
          Line += " " + std::to_string(V);
        }
        Send(Line + "\n");
      },
      verifyTimeoutSeconds(), Output);
  llvm::StringRef Rest(Output);
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    if (Line.consume_front("error ")) {
      llvm::consumeError(std::move(Failed));
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the extent probe failed: " + Line.str());
    }
    if (!Line.consume_front("probe "))
      continue;
    llvm::consumeError(std::move(Failed));
    llvm::SmallVector<llvm::StringRef, 16> Words;
    Line.split(Words, ' ');
    std::vector<ProbedRange> Ranges(Arrays);
    for (size_t I = 0; I < Arrays && 2 * I + 1 < Words.size(); ++I) {
      Words[2 * I].getAsInteger(10, Ranges[I].Lo);
      Words[2 * I + 1].getAsInteger(10, Ranges[I].Hi);
    }
    return Ranges;
  }
  if (Failed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the extent probe failed: " +
                                       llvm::toString(std::move(Failed)));
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the extent probe said nothing");
}

} // namespace gpumerge

//===- RaceCheckRun.cpp - Which work-groups verify runs checked -----------===//
#include "Runtime/RaceCheckRun.h"
#include "CodeGen/RaceCheck.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

namespace gpumerge {

std::optional<std::array<std::size_t, 3>> workGroups(const NDRange &R) {
  std::array<std::size_t, 3> G{1, 1, 1};
  for (unsigned D = 0; D < R.Dims; ++D) {
    if (R.Local[D] == 0)
      return std::nullopt;
    G[D] = (R.Global[D] + R.Local[D] - 1) / R.Local[D];
  }
  return G;
}

std::vector<std::array<std::size_t, 3>>
sampledWorkGroups(std::array<std::size_t, 3> Groups) {
  auto [X, Y, Z] = Groups;
  std::vector<std::array<std::size_t, 3>> Picked;
  for (std::array<std::size_t, 3> G : {std::array<std::size_t, 3>{0, 0, 0},
                                       {X - 1, Y - 1, Z - 1},
                                       {X - 1, 0, 0},
                                       {0, Y - 1, 0},
                                       {X / 2, Y / 2, Z / 2}})
    if (std::find(Picked.begin(), Picked.end(), G) == Picked.end())
      Picked.push_back(G);
  return Picked;
}

bool readsGridPlace(const Function &F) {
  bool Reads = false;
  if (F.Body)
    walkExprs(*F.Body, [&](const Expr &E) {
      if (const auto *B = llvm::dyn_cast<BuiltinRef>(&E))
        switch (B->Which) {
        case Builtin::Tidx:
        case Builtin::Tidy:
        case Builtin::Tidz:
        case Builtin::Bdimx:
        case Builtin::Bdimy:
        case Builtin::Bdimz:
          break;
        default:
          Reads = true;
        }
    });
  return Reads;
}

RaceCheckPlan planRaceCheck(const RaceCheckInputs &In, std::string &Says) {
  std::string Counts;
  double Share = 0;
  for (const NDRange &Range : In.CheckedLaunches) {
    auto Groups = workGroups(Range);
    if (!Groups) {
      Says = "not checked: the runtime picks the work-group size";
      return RaceCheckPlan::None;
    }
    std::size_t All = (*Groups)[0] * (*Groups)[1] * (*Groups)[2];
    std::size_t Some = sampledWorkGroups(*Groups).size();
    Share = std::max(Share, double(Some) / double(All));
    Counts +=
        llvm::formatv("{0}{1} of {2}", Counts.empty() ? "" : ", ", Some, All);
  }
  // A --tune candidate runs as emitted for its times: its checks run
  // beside it, on some of its work-groups.
  if (!In.Timed && In.ReferenceSeconds <= RaceCheckInputSeconds) {
    Says = "checked";
    return RaceCheckPlan::All;
  }
  std::string Over =
      llvm::formatv("the input ran {0:f2} s, over the {1:f2} s the checks "
                    "allow",
                    In.ReferenceSeconds, RaceCheckInputSeconds);
  if (!In.NotSampled.empty()) {
    Says = "not checked: " + Over + ", and " + In.NotSampled;
    return RaceCheckPlan::None;
  }
  if (Counts.empty() || In.ReferenceSeconds * Share > RaceCheckInputSeconds) {
    Says = "not checked: " + Over +
           (Counts.empty() ? "" : ", even in " + Counts + " work-groups") +
           " (smaller --size)";
    return RaceCheckPlan::None;
  }
  Says = llvm::formatv("checked in {0} work-groups (the corners of the grid "
                       "and its middle): {1}",
                       Counts,
                       In.Timed ? "a --tune candidate runs as emitted for its "
                                  "times"
                                : Over);
  return RaceCheckPlan::Some;
}

llvm::Error checkSomeWorkGroups(DeviceSession &Session, unsigned Checking,
                                const std::string &Kernel,
                                const std::vector<KernelArg> &Args,
                                const std::vector<unsigned> &Buffers,
                                unsigned Record, const NDRange &Range) {
  std::map<unsigned, unsigned> Copy;
  // The copies go when the check is done (a --tune run checks many).
  struct Release {
    DeviceSession &Session;
    std::map<unsigned, unsigned> &Copy;
    ~Release() {
      for (const auto &[Buffer, Copied] : Copy)
        Session.release(Copied);
    }
  } Releasing{Session, Copy};
  for (unsigned B : Buffers) {
    auto Data = Session.readBuffer(B);
    if (!Data)
      return Data.takeError();
    auto C = Session.createBuffer(*Data);
    if (!C)
      return C.takeError();
    Copy[B] = *C;
  }
  std::vector<KernelArg> Checked = Args;
  for (KernelArg &A : Checked)
    if (A.ArgKind == KernelArg::Kind::Buffer && Copy.count(A.BufferId))
      A.BufferId = Copy[A.BufferId];
  Checked.push_back(KernelArg::buffer(Record));
  NDRange One = Range;
  for (unsigned D = 0; D < Range.Dims; ++D)
    One.Global[D] = Range.Local[D];
  auto Groups = *workGroups(Range);
  for (const auto &G : sampledWorkGroups(Groups)) {
    std::vector<KernelArg> A = Checked;
    for (std::int32_t V : RaceRecord::groupArguments(G, Groups))
      A.push_back(KernelArg::i32(V));
    if (auto E = Session.launch(Checking, Kernel, A, One))
      return E;
  }
  return llvm::Error::success();
}

} // namespace gpumerge

//===- WriteCollisionRun.cpp - Do the input's writes collide? -------------===//
#include "Runtime/WriteCollisionRun.h"
#include "CodeGen/WriteCollisions.h"

#include <cstring>

namespace gpumerge {
namespace {

/// The objects a check creates on the session, released with it.
class Objects {
public:
  explicit Objects(DeviceSession &Session) : Session(Session) {}
  Objects(const Objects &) = delete;
  Objects &operator=(const Objects &) = delete;
  ~Objects() {
    for (unsigned B : Buffers)
      Session.release(B);
    for (unsigned P : Programs)
      Session.releaseProgram(P);
  }
  llvm::Expected<unsigned> buffer(const std::vector<std::uint8_t> &Init) {
    auto B = Session.createBuffer(Init);
    if (B)
      Buffers.push_back(*B);
    return B;
  }
  std::vector<unsigned> Programs;

private:
  DeviceSession &Session;
  std::vector<unsigned> Buffers;
};

} // namespace

llvm::Expected<std::string> findWriteCollision(DeviceSession &Session,
                                               const DeviceRun &Run) {
  Objects Made(Session);
  std::vector<std::string> Kernels;
  for (const Launch &L : Run.Launches) {
    auto Renamed = Run.ReferenceNames.find(L.Naive);
    Kernels.push_back(Renamed == Run.ReferenceNames.end() ? L.Naive
                                                          : Renamed->second);
  }
  auto Program = Session.buildProgram(
      collisionCheckHelpers() + Run.CollisionCheck, Run.BuildOptions, Kernels);
  if (!Program)
    return Program.takeError();
  Made.Programs.push_back(*Program);
  // The kernel's own arguments, on copies of the inputs: the launches see
  // each other's results, as the reference's do.
  std::vector<KernelArg> Args;
  for (size_t I = 0; I < Run.Params.size(); ++I) {
    const Param &P = Run.Params[I];
    if (!P.Ty.IsPointer) {
      Args.push_back(scalarArg(P.Ty, Run.Scalars[I], Run.Device));
      continue;
    }
    auto B = Made.buffer((*Run.Inputs)[I]);
    if (!B)
      return B.takeError();
    Args.push_back(KernelArg::buffer(*B));
  }
  for (size_t I = 0; I < Run.Launches.size(); ++I) {
    const Launch &L = Run.Launches[I];
    auto Checked = Run.CollisionChecked.find(L.Naive);
    if (Checked == Run.CollisionChecked.end()) {
      if (auto E = Session.launch(*Program, Kernels[I], Args, L.NaiveRange))
        return E;
      continue;
    }
    // Each claimed array's shadow, zero: a later launch may write what an
    // earlier one wrote.
    std::vector<KernelArg> With = Args;
    for (const std::string &A : Checked->second) {
      auto It = Run.Extents.find(A);
      std::int64_t N = It == Run.Extents.end() ? 0 : It->second;
      auto Shadow = Made.buffer(std::vector<std::uint8_t>(size_t(N) * 4 + 4));
      if (!Shadow)
        return Shadow.takeError();
      With.push_back(KernelArg::buffer(*Shadow));
      With.push_back(KernelArg::i32(std::int32_t(N)));
    }
    auto Record =
        Made.buffer(std::vector<std::uint8_t>(CollisionRecord::Words * 4));
    if (!Record)
      return Record.takeError();
    With.push_back(KernelArg::buffer(*Record));
    if (auto E = Session.launch(*Program, Kernels[I], With, L.NaiveRange))
      return E;
    auto Data = Session.readBuffer(*Record);
    if (!Data)
      return Data.takeError();
    std::vector<std::uint32_t> Words(CollisionRecord::Words);
    std::memcpy(Words.data(), Data->data(),
                std::min(Data->size(), Words.size() * 4));
    std::string Collision = CollisionRecord::describe(
        Kernels[I], Checked->second, Words, L.NaiveRange.Global);
    if (!Collision.empty())
      return Collision;
  }
  return std::string();
}

} // namespace gpumerge

//===- WriteCollisions.cpp - Input kernels that report their own races ----===//
#include "CodeGen/WriteCollisions.h"
#include "CodeGen/OpenCLEmitter.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace gpumerge {
namespace {

/// The record's words, as gpumerge_claim fills them.
namespace Word {
enum : unsigned { Found, Array, Element, First, Second };
} // namespace Word

class CollisionCheckEmitter : public OpenCLEmitter {
public:
  CollisionCheckEmitter(llvm::raw_ostream &OS,
                        const std::vector<std::string> &Arrays)
      : OpenCLEmitter(OS), Arrays(Arrays) {}

protected:
  // `{ gpumerge_claim(...); h[i] = v; }`: one statement, standing where
  // the assignment stood (an if's body without braces).
  void printAssign(const AssignStmt &S) override {
    const auto *A = llvm::dyn_cast<ArrayRef>(S.LHS.get());
    auto It = A ? llvm::find(Arrays, A->Array) : Arrays.end();
    const Param *P = A ? Current->findParam(A->Array) : nullptr;
    if (It == Arrays.end() || !P)
      return OpenCLEmitter::printAssign(S);
    ExprPtr Flat = flatIndex(*A, *P);
    if (A->VectorWidth > 1)
      Flat = mul(std::move(Flat), intLit(A->VectorWidth));
    const size_t Slot = size_t(It - Arrays.begin());
    OS << "{ gpumerge_claim(gpumerge_writer" << Slot << ", gpumerge_elements"
       << Slot << ", (long)(";
    printExpr(*Flat);
    OS << "), gpumerge_me, gpumerge_collision, " << Slot << "u); ";
    OpenCLEmitter::printAssign(S);
    OS << " }";
  }

private:
  const std::vector<std::string> &Arrays;
};

/// The global array parameters \p F assigns elements of, in parameter
/// order.
std::vector<std::string> assignedArrays(const Function &F) {
  std::set<std::string> Assigned;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (const auto *A = llvm::dyn_cast<AssignStmt>(&S))
      if (const auto *R = llvm::dyn_cast<ArrayRef>(A->LHS.get()))
        Assigned.insert(R->Array);
  });
  std::vector<std::string> Arrays;
  for (const Param &P : F.Params)
    if (P.Ty.IsPointer && P.Ty.Space == AddressSpace::Global &&
        Assigned.count(P.Name))
      Arrays.push_back(P.Name);
  return Arrays;
}

} // namespace

std::optional<CollisionCheckedKernel> emitCollisionChecked(const Function &F) {
  CollisionCheckedKernel K;
  K.Arrays = assignedArrays(F);
  if (!F.IsKernel || K.Arrays.empty())
    return std::nullopt;
  llvm::raw_string_ostream OS(K.Text);
  CollisionCheckEmitter(OS, K.Arrays).printFunction(F);
  OS.flush();
  size_t Open = K.Text.find(") {\n");
  if (Open == std::string::npos)
    return std::nullopt;
  K.Text.insert(Open + 4,
                "  const uint gpumerge_me = (uint)(get_global_id(0) + "
                "get_global_size(0) * (get_global_id(1) + get_global_size(1) "
                "* get_global_id(2))) + 1u;\n");
  std::string Args;
  for (size_t I = 0; I < K.Arrays.size(); ++I)
    Args += llvm::formatv(", __global uint *gpumerge_writer{0}, int "
                          "gpumerge_elements{0}",
                          I)
                .str();
  Args += ", __global uint *gpumerge_collision";
  if (K.Text[Open - 1] == '(')
    Args.erase(0, 2);
  K.Text.insert(Open, Args);
  return K;
}

std::string collisionCheckHelpers() {
  static_assert(Word::Found == 0 && Word::Array == 1 && Word::Element == 2 &&
                    Word::First == 3 && Word::Second == 4,
                "the OpenCL below spells them");
  return R"(// --verify's check of the input's writes (gpumerge,
// WriteCollisions.h): work-item Me claims element I of an array before it
// stores there; where another work-item of the launch claimed it, the
// first such collision is recorded.
void gpumerge_claim(__global uint *Writer, int Elements, long I, uint Me,
                    __global uint *Record, uint Array) {
  if (I < 0 || I >= Elements)
    return;
  uint Was = atomic_xchg(&Writer[I], Me);
  if (Was != 0u && Was != Me && atomic_cmpxchg(&Record[0], 0u, 1u) == 0u) {
    Record[1] = Array;
    Record[2] = (uint)I;
    Record[3] = Was;
    Record[4] = Me;
  }
}
)";
}

std::string CollisionRecord::describe(const std::string &Kernel,
                                      const std::vector<std::string> &Arrays,
                                      const std::vector<std::uint32_t> &Record,
                                      std::array<std::size_t, 3> Global) {
  if (Record.size() <= Word::Second || Record[Word::Found] == 0 ||
      Record[Word::Array] >= Arrays.size())
    return "";
  // A writer is its global linear id plus one: x + X * (y + Y * z).
  auto Item = [&](std::uint32_t Writer) {
    std::uint64_t Id = Writer - 1;
    std::uint64_t X = std::max<std::size_t>(Global[0], 1),
                  Y = std::max<std::size_t>(Global[1], 1);
    std::string S = llvm::formatv("({0}, {1}", Id % X, Id / X % Y).str();
    if (Id / X / Y)
      S += llvm::formatv(", {0}", Id / X / Y).str();
    return S + ")";
  };
  return llvm::formatv("work-items {0} and {1} of '{2}' write element {3} "
                       "of '{4}'",
                       Item(Record[Word::First]), Item(Record[Word::Second]),
                       Kernel, Record[Word::Element],
                       Arrays[Record[Word::Array]])
      .str();
}

} // namespace gpumerge

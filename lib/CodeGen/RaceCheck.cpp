//===- RaceCheck.cpp - Optimized kernels that report shared-memory races -===//
#include "CodeGen/RaceCheck.h"
#include "CodeGen/OpenCLEmitter.h"

#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {
namespace {

/// A shadow word: the barrier interval in the high bits, the work-item's
/// index within its group plus one in the low 12 (0xFFF: several readers).
constexpr unsigned ItemBits = 12;
constexpr std::uint32_t Several = (1u << ItemBits) - 1;

/// The record's words (RaceRecord::Words), as gpumerge_report fills them.
namespace Word {
enum : unsigned { Count, Kind, Array, Element, Item, Other, Interval };
} // namespace Word
/// Word::Kind, as gpumerge_access reports it.
enum RaceKind : std::uint32_t {
  ReadAfterWrite = 1,
  WriteAfterRead = 2,
  WriteAfterWrite = 3,
  OutOfBounds = 4,
  BeforeAsyncLanded = 5
};

/// The work-groups' largest size, for the work-items' wait records.
constexpr unsigned MostItems = 1024;

std::int64_t elements(const CheckedArray &A) {
  std::int64_t N = 1;
  for (std::int64_t X : A.Extents)
    N *= X;
  return N;
}

const CheckedArray *findArray(const std::vector<CheckedArray> &Arrays,
                              const std::string &Name) {
  for (const CheckedArray &C : Arrays)
    if (C.Name == Name)
      return &C;
  return nullptr;
}

class RaceCheckEmitter : public OpenCLEmitter {
public:
  RaceCheckEmitter(llvm::raw_ostream &OS,
                   const std::vector<CheckedArray> &Arrays)
      : OpenCLEmitter(OS), Arrays(Arrays) {}

protected:
  // The work-group's place in the whole grid, where the launch may run only
  // some of its work-groups (RaceRecord::groupArguments).
  void printBuiltin(Builtin B) override {
    unsigned D = builtinDimension(B);
    switch (B) {
    case Builtin::Idx:
    case Builtin::Idy:
    case Builtin::Idz:
      OS << "((get_group_id(" << D << ") + gpumerge_group" << D
         << ") * get_local_size(" << D << ") + get_local_id(" << D << "))";
      return;
    case Builtin::Bidx:
    case Builtin::Bidy:
    case Builtin::Bidz:
      OS << "(get_group_id(" << D << ") + gpumerge_group" << D << ")";
      return;
    case Builtin::Gdimx:
    case Builtin::Gdimy:
      OS << "((size_t)gpumerge_groups" << D << ")";
      return;
    case Builtin::Gsizex:
    case Builtin::Gsizey:
      OS << "((size_t)gpumerge_groups" << D << " * get_local_size(" << D
         << "))";
      return;
    default:
      return OpenCLEmitter::printBuiltin(B);
    }
  }
  void printSync() override {
    OS << "(barrier(CLK_LOCAL_MEM_FENCE), ++gpumerge_epoch);";
  }
  void printArrayRead(const ArrayRef &A) override {
    const CheckedArray *C = checked(A.Array);
    if (!C)
      return OpenCLEmitter::printArrayRead(A);
    OS << "(";
    printCheck("gpumerge_read", A, *C);
    OS << ", ";
    printArrayAccess(A);
    OS << ")";
  }
  // A checked store is written whole: `*(...).x` would take the component
  // of the pointer.
  bool spellsComponentStore(const AssignStmt &S) const override {
    const auto *A = llvm::dyn_cast<ArrayRef>(S.LHS.get());
    return !A || !checked(A->Array);
  }
  // `*(gpumerge_write(...), &a_s[i][j]) = v;`: one expression, so that it
  // stands where the assignment stood (an if's body without braces).
  void printAssignTarget(const AssignStmt &S) override {
    const auto *A = llvm::dyn_cast<ArrayRef>(S.LHS.get());
    const CheckedArray *C = A ? checked(A->Array) : nullptr;
    if (!C)
      return OpenCLEmitter::printAssignTarget(S);
    OS << "*(";
    printCheck(S.Op != AssignOp::Set ? "gpumerge_update"
               : InAsyncCopy         ? "gpumerge_async"
                                     : "gpumerge_write",
               *A, *C);
    OS << ", &";
    printArrayAccess(*A);
    OS << ")";
  }

  // A cp.async copy's write is pending from its issue until a wait of its
  // work-item covers its batch; others see it after a barrier past that
  // wait (gpumerge_access).
  void printAsyncCopy(const AssignStmt &A) override {
    InAsyncCopy = true;
    printAssign(A);
    InAsyncCopy = false;
  }
  void printPipeline(const PipelineStmt &P) override {
    if (P.Operation == PipelineStmt::Op::Commit) {
      OS << "++gpumerge_batch;";
      return;
    }
    OS << "gpumerge_wait(gpumerge_batch - min(gpumerge_batch, " << P.Prior
       << "u), gpumerge_epoch, gpumerge_me, gpumerge_waits);";
  }

private:
  const std::vector<CheckedArray> &Arrays;
  bool InAsyncCopy = false;

  const CheckedArray *checked(const std::string &Name) const {
    return findArray(Arrays, Name);
  }
  /// gpumerge_read(writers, readers, size, first element, elements, item,
  /// interval, record, array).
  void printCheck(const char *Check, const ArrayRef &A, const CheckedArray &C) {
    ExprPtr Flat =
        flatIndex(A, llvm::ArrayRef<std::int64_t>(C.Extents).drop_front());
    if (A.VectorWidth > 1)
      Flat = mul(std::move(Flat), intLit(A.VectorWidth));
    OS << Check << "(gpumerge_w_" << C.Name << ", gpumerge_r_" << C.Name
       << ", gpumerge_a_" << C.Name << ", gpumerge_waits, " << elements(C)
       << ", (long)(";
    printExpr(*Flat);
    OS << "), " << A.VectorWidth
       << ", gpumerge_me, gpumerge_epoch, gpumerge_record, "
       << (&C - &Arrays[0]) << (InAsyncCopy ? ", gpumerge_batch + 1" : "")
       << ")";
  }
};

/// The shared arrays of \p F, or nullopt where one is used other than by
/// indexing it with as many indices as it has dimensions (or one, for a
/// vector access).
std::optional<std::vector<CheckedArray>> sharedArrays(const Function &F) {
  std::vector<CheckedArray> Arrays;
  bool Usable = true;
  walkStmts(*F.Body, [&](Stmt &S) {
    if (auto *D = llvm::dyn_cast<DeclStmt>(&S))
      if (D->Ty.Space == AddressSpace::Shared) {
        Usable &= !D->Extents.empty() && !D->Init;
        Arrays.push_back({D->Name, D->Extents});
      }
  });
  auto Find = [&](const std::string &Name) { return findArray(Arrays, Name); };
  walkExprs(*F.Body, [&](const Expr &E) {
    if (const auto *V = llvm::dyn_cast<VarRef>(&E))
      Usable &= !Find(V->Name);
    if (const auto *A = llvm::dyn_cast<ArrayRef>(&E))
      if (const CheckedArray *C = Find(A->Array))
        Usable &= A->VectorWidth > 1 ? A->Indices.size() == 1
                                     : A->Indices.size() == C->Extents.size();
  });
  if (!Usable || Arrays.empty())
    return std::nullopt;
  return Arrays;
}

} // namespace

std::optional<RaceCheckedKernel> emitRaceChecked(const Function &F) {
  auto Arrays = sharedArrays(F);
  if (!Arrays)
    return std::nullopt;
  RaceCheckedKernel K;
  K.Arrays = std::move(*Arrays);
  llvm::raw_string_ostream OS(K.Text);
  RaceCheckEmitter(OS, K.Arrays).printFunction(F);
  OS.flush();
  size_t Open = K.Text.find(") {\n");
  if (Open == std::string::npos)
    return std::nullopt;
  std::string Prologue;
  std::int64_t Most = 0;
  for (const CheckedArray &C : K.Arrays) {
    std::string N = std::to_string(elements(C));
    Prologue += "  __local uint gpumerge_w_" + C.Name + "[" + N +
                "], gpumerge_r_" + C.Name + "[" + N + "], gpumerge_a_" +
                C.Name + "[" + N + "];\n";
    Most = std::max(Most, elements(C));
  }
  const std::string Waits = std::to_string(3 * MostItems);
  Prologue += "  __local uint gpumerge_waits[" + Waits + "];\n";
  Most = std::max<std::int64_t>(Most, 3 * MostItems);
  Prologue += "  const uint gpumerge_me = get_local_id(0) + get_local_size(0) "
              "* (get_local_id(1) + get_local_size(1) * get_local_id(2));\n"
              "  for (uint gpumerge_i = gpumerge_me; gpumerge_i < " +
              std::to_string(Most) +
              "; gpumerge_i += get_local_size(0) * get_local_size(1) * "
              "get_local_size(2)) {\n";
  for (const CheckedArray &C : K.Arrays)
    Prologue += "    if (gpumerge_i < " + std::to_string(elements(C)) +
                ") gpumerge_w_" + C.Name + "[gpumerge_i] = gpumerge_r_" +
                C.Name + "[gpumerge_i] = gpumerge_a_" + C.Name +
                "[gpumerge_i] = 0;\n";
  Prologue +=
      "    if (gpumerge_i < " + Waits + ") gpumerge_waits[gpumerge_i] = 0;\n";
  Prologue += "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
              "  uint gpumerge_epoch = 1, gpumerge_batch = 0;\n";
  // This work-group's record (RaceRecord::Slots).
  Prologue += "  __global uint *gpumerge_record = gpumerge_race + " +
              std::to_string(RaceRecord::Words) +
              " * ((get_group_id(0) + get_num_groups(0) * (get_group_id(1) + "
              "get_num_groups(1) * get_group_id(2))) % " +
              std::to_string(RaceRecord::Slots) + ");\n";
  K.Text.insert(Open + 4, Prologue);
  K.Text.insert(Open, std::string(K.Text[Open - 1] == '(' ? "" : ", ") +
                          "__global uint *gpumerge_race, int gpumerge_group0, "
                          "int gpumerge_group1, int gpumerge_group2, int "
                          "gpumerge_groups0, int gpumerge_groups1");
  return K;
}

std::string raceCheckHelpers() {
  static_assert(ItemBits == 12 && Several == 0xFFF && OutOfBounds == 4 &&
                    BeforeAsyncLanded == 5 && MostItems == 1024 &&
                    Word::Interval == 6 && RaceRecord::Words == 24,
                "the OpenCL below spells them");
  // No branches: PoCL's work-group compiler replicates the code after a
  // branch up to the next barrier, which made kernels of a few dozen
  // checked accesses take minutes to build.
  return R"(// --verify's race check (gpumerge, RaceCheck.h). A shadow word holds
// the barrier interval << 12 | the work-item + 1 (0xFFF: several readers).
// A race (1: a read after another work-item's write, 2: a write after
// another's read, 3: a write after another's write, all in one interval; 4:
// an index out of bounds; 5: an access before a cp.async copy into the
// element landed) sets r[0] and writes r[1..6]; an access without one
// writes the same to r[16..22] instead.
// A cp.async copy leaves its batch + 1 in the element's async word. Its
// work-item's waits are in waits[3 * item ..]: the interval of its latest
// wait, the batches that wait and the others of that interval landed, and
// the batches landed by the waits of earlier intervals. The copy is seen by
// its own work-item after a wait covering its batch, by the others in an
// interval after such a wait (a barrier between).
void gpumerge_wait(uint landed, uint epoch, uint item, __local uint *waits) {
  __local uint *m = waits + 3 * min(item, 1023u);
  const uint newer = epoch > m[0];
  m[2] = newer ? max(m[2], m[1]) : m[2];
  m[1] = newer ? landed : max(m[1], landed);
  m[0] = epoch;
}
void gpumerge_access(__local uint *w, __local uint *rd, __local uint *as,
                     __local uint *waits, long size, long first, uint n,
                     uint item, uint epoch, __global uint *r, uint array,
                     int reads, int writes, uint async) {
  const uint me = epoch << 12 | (item + 1);
  for (uint i = 0; i < n; ++i) {
    const long e = first + i, c = clamp(e, 0L, size - 1);
    const uint W = w[c], R = rd[c], A = as[c];
    const uint writer = min((W & 0xFFF) - 1, 1023u);
    __local uint *m = waits + 3 * writer;
    const uint landed = writer == item || m[0] < epoch ? max(m[1], m[2]) : m[2];
    const uint seen = A == 0 || landed >= A;
    const uint wrote = W >> 12 == epoch && W != me;
    const uint read = writes && R >> 12 == epoch && R != me;
    const uint kind = e != c    ? 4
                      : !seen   ? 5
                      : wrote   ? (writes ? 3 : 1)
                      : read    ? 2
                                : 0;
    const uint at = kind ? 0 : 16;
    r[at] = 1;
    r[at + 1] = kind;
    r[at + 2] = array;
    r[at + 3] = (uint)e;
    r[at + 4] = item;
    r[at + 5] = kind == 2 ? ((R & 0xFFF) == 0xFFF ? 0xFFFFFFFF : (R & 0xFFF) - 1)
                          : (W & 0xFFF) - 1;
    r[at + 6] = epoch;
    rd[c] = !reads ? R : R >> 12 != epoch || R == me ? me : epoch << 12 | 0xFFF;
    w[c] = writes ? me : W;
    as[c] = writes ? async : A;
  }
}
void gpumerge_read(__local uint *w, __local uint *rd, __local uint *as,
                   __local uint *waits, long size, long first, uint n,
                   uint item, uint epoch, __global uint *r, uint array) {
  gpumerge_access(w, rd, as, waits, size, first, n, item, epoch, r, array, 1,
                  0, 0);
}
void gpumerge_write(__local uint *w, __local uint *rd, __local uint *as,
                    __local uint *waits, long size, long first, uint n,
                    uint item, uint epoch, __global uint *r, uint array) {
  gpumerge_access(w, rd, as, waits, size, first, n, item, epoch, r, array, 0,
                  1, 0);
}
void gpumerge_update(__local uint *w, __local uint *rd, __local uint *as,
                     __local uint *waits, long size, long first, uint n,
                     uint item, uint epoch, __global uint *r, uint array) {
  gpumerge_access(w, rd, as, waits, size, first, n, item, epoch, r, array, 1,
                  1, 0);
}
// A cp.async copy of batch + 1 = async (the commits so far, + 1).
void gpumerge_async(__local uint *w, __local uint *rd, __local uint *as,
                    __local uint *waits, long size, long first, uint n,
                    uint item, uint epoch, __global uint *r, uint array,
                    uint async) {
  gpumerge_access(w, rd, as, waits, size, first, n, item, epoch, r, array, 0,
                  1, async);
}
)";
}

std::vector<std::uint32_t>
RaceRecord::firstRace(const std::vector<std::uint32_t> &Buffer) {
  auto Slot = [&](size_t S) {
    auto First = Buffer.begin() + std::ptrdiff_t(S * Words);
    return std::vector<std::uint32_t>(First, First + Words);
  };
  for (size_t S = 0; (S + 1) * Words <= Buffer.size(); ++S)
    if (Buffer[S * Words + Word::Count])
      return Slot(S);
  return Buffer.size() < Words ? std::vector<std::uint32_t>(Words, 0) : Slot(0);
}

std::string RaceRecord::describe(const std::string &Kernel,
                                 const std::vector<CheckedArray> &Arrays,
                                 const std::vector<std::uint32_t> &R,
                                 std::array<std::size_t, 2> Local) {
  if (R.size() < Words || R[Word::Count] == 0 ||
      R[Word::Array] >= Arrays.size())
    return "";
  const CheckedArray &A = Arrays[R[Word::Array]];
  auto ItemName = [&](std::uint32_t I) {
    std::size_t X = std::max<std::size_t>(Local[0], 1),
                Y = std::max<std::size_t>(Local[1], 1);
    std::string S = llvm::formatv("({0}, {1}", I % X, I / X % Y);
    if (I / X / Y)
      S += llvm::formatv(", {0}", I / X / Y);
    return S + ")";
  };
  if (R[Word::Kind] == OutOfBounds)
    return llvm::formatv("shared-memory access out of bounds in '{0}': "
                         "work-item {1} accessed element {2} of '{3}', which "
                         "has {4}",
                         Kernel, ItemName(R[Word::Item]),
                         std::int32_t(R[Word::Element]), A.Name, elements(A));
  std::string Cell = A.Name;
  std::vector<std::int64_t> Index(A.Extents.size());
  std::int64_t Rest = R[Word::Element];
  for (size_t I = A.Extents.size(); I-- > 0;) {
    Index[I] = Rest % A.Extents[I];
    Rest /= A.Extents[I];
  }
  for (std::int64_t I : Index)
    Cell += "[" + std::to_string(I) + "]";
  std::string By = R[Word::Other] == 0xFFFFFFFF ? "other work-items"
                                                : ItemName(R[Word::Other]);
  if (R[Word::Kind] == BeforeAsyncLanded && R[Word::Item] == R[Word::Other])
    return llvm::formatv(
        "shared-memory race in '{0}': work-item {1} accessed '{2}' before its "
        "own asynchronous copy into it landed (no __pipeline_wait_prior "
        "covering it before the access; barrier interval {3})",
        Kernel, ItemName(R[Word::Item]), Cell, R[Word::Interval]);
  if (R[Word::Kind] == BeforeAsyncLanded)
    return llvm::formatv(
        "shared-memory race in '{0}': work-item {1} accessed '{2}' before the "
        "asynchronous copy {3} made into it landed (no __pipeline_wait_prior "
        "of {3} covering it, then a barrier, before the access; barrier "
        "interval {4})",
        Kernel, ItemName(R[Word::Item]), Cell, ItemName(R[Word::Other]),
        R[Word::Interval]);
  const char *What =
      R[Word::Kind] == ReadAfterWrite   ? "read {0} after {1} wrote it"
      : R[Word::Kind] == WriteAfterRead ? "wrote {0} after {1} read it"
                                        : "wrote {0} after {1} wrote it";
  return llvm::formatv("shared-memory race in '{0}': work-item {1} {2} with "
                       "no barrier between (barrier interval {3})",
                       Kernel, ItemName(R[Word::Item]),
                       llvm::formatv(What, "'" + Cell + "'", By).str(),
                       R[Word::Interval]);
}

} // namespace gpumerge

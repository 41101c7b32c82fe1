//===- SimdIntrinsics.cpp - CUDA SIMD video intrinsics in OpenCL ----------===//
#include "CodeGen/SimdIntrinsics.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <vector>

namespace gpumerge {

namespace {

/// One intrinsic, for either lane width: its name without the width digit,
/// its arity, and its result in OpenCL C over the lanes, `{S}` the signed
/// lane vector (char4, short2), `{U}` the unsigned one, `{A}`/`{B}` the
/// arguments seen as signed or unsigned lanes as the name says, `{MAX}` the
/// signed lane's largest value; `{SUM}`: the sum of the lanes' absolute
/// differences.
struct Simd {
  const char *Stem;
  unsigned Arity;
  bool Signed; ///< the lanes of a and b are signed
  const char *Result;
};

// PTX's vabsdiff, vadd, vsub, vavrg, vmax, vmin and vset, lane by lane; the
// .sat forms saturate to the lane's type. rhadd is PTX's rounded average
// ((a + b + 1) >> 1), hadd the truncated one.
const Simd Table[] = {
    {"__vabs", 1, true, "as_uint(abs({A}))"},
    {"__vabsss", 1, true, "as_uint(min(abs({A}), ({U})({MAX})))"},
    {"__vneg", 1, true, "as_uint(({S})0 - {A})"},
    {"__vnegss", 1, true, "as_uint(sub_sat(({S})0, {A}))"},
    {"__vabsdiffs", 2, true, "as_uint(abs_diff({A}, {B}))"},
    {"__vabsdiffu", 2, false, "as_uint(abs_diff({A}, {B}))"},
    {"__vadd", 2, false, "as_uint({A} + {B})"},
    {"__vsub", 2, false, "as_uint({A} - {B})"},
    {"__vaddss", 2, true, "as_uint(add_sat({A}, {B}))"},
    {"__vaddus", 2, false, "as_uint(add_sat({A}, {B}))"},
    {"__vsubss", 2, true, "as_uint(sub_sat({A}, {B}))"},
    {"__vsubus", 2, false, "as_uint(sub_sat({A}, {B}))"},
    {"__vavgs", 2, true, "as_uint(rhadd({A}, {B}))"},
    {"__vavgu", 2, false, "as_uint(rhadd({A}, {B}))"},
    {"__vhaddu", 2, false, "as_uint(hadd({A}, {B}))"},
    {"__vmaxs", 2, true, "as_uint(max({A}, {B}))"},
    {"__vmaxu", 2, false, "as_uint(max({A}, {B}))"},
    {"__vmins", 2, true, "as_uint(min({A}, {B}))"},
    {"__vminu", 2, false, "as_uint(min({A}, {B}))"},
    {"__vsads", 2, true, "{SUM}"},
    {"__vsadu", 2, false, "{SUM}"},
};

/// The comparisons: `__vcmpgts4` a mask of 0xff bytes (OpenCL's vector
/// comparison gives -1 per true lane), `__vsetgts4` a 1 per true byte.
struct Comparison {
  const char *Name; ///< eq, ges, gtu, ...
  const char *Op;
  bool Signed;
};
const Comparison Comparisons[] = {
    {"eq", "==", false},  {"ne", "!=", false},  {"ges", ">=", true},
    {"geu", ">=", false}, {"gts", ">", true},   {"gtu", ">", false},
    {"les", "<=", true},  {"leu", "<=", false}, {"lts", "<", true},
    {"ltu", "<", false},
};

struct Lanes {
  char Width;
  const char *S, *U, *Max, *Ones;
  const char *Sum; ///< the lanes of d summed, as a uint
};
const Lanes Widths[] = {
    {'4', "char4", "uchar4", "127", "0x01010101u",
     "(uint)d.x + (uint)d.y + (uint)d.z + (uint)d.w"},
    {'2', "short2", "ushort2", "32767", "0x00010001u", "(uint)d.x + (uint)d.y"},
};

std::string replaceAll(std::string Text, llvm::StringRef From,
                       llvm::StringRef To) {
  for (size_t At = Text.find(From.str()); At != std::string::npos;
       At = Text.find(From.str(), At + To.size()))
    Text.replace(At, From.size(), To.str());
  return Text;
}

/// The OpenCL definition of \p CudaName, one of Table's or Comparisons'
/// stems with a width digit.
std::string define(llvm::StringRef CudaName) {
  const Lanes *L = nullptr;
  for (const Lanes &W : Widths)
    if (CudaName.back() == W.Width)
      L = &W;
  if (!L)
    return "";
  llvm::StringRef Stem = CudaName.drop_back();
  std::string Name = "gpumerge_" + CudaName.drop_front(2).str();
  auto Lane = [&](bool Signed, const char *Arg) {
    return llvm::formatv("as_{0}({1})", Signed ? L->S : L->U, Arg).str();
  };
  std::string Body;
  unsigned Arity = 2;
  for (const Simd &S : Table)
    if (Stem == S.Stem) {
      Arity = S.Arity;
      Body = S.Result;
      if (Body == "{SUM}")
        Body = llvm::formatv("{0} d = abs_diff({1}, {2}); return {3}", L->U,
                             Lane(S.Signed, "a"), Lane(S.Signed, "b"), L->Sum)
                   .str();
      else
        Body = "return " + Body;
      Body = replaceAll(Body, "{A}", Lane(S.Signed, "a"));
      Body = replaceAll(Body, "{B}", Lane(S.Signed, "b"));
    }
  for (const Comparison &C : Comparisons)
    for (bool Mask : {true, false})
      if (Stem == (Mask ? "__vcmp" : "__vset") + std::string(C.Name)) {
        std::string Test =
            llvm::formatv("as_uint({0} {1} {2})", Lane(C.Signed, "a"), C.Op,
                          Lane(C.Signed, "b"));
        Body = "return " + (Mask ? Test : "(" + Test + " & " + L->Ones + ")");
      }
  if (Body.empty())
    return "";
  Body = replaceAll(Body, "{S}", L->S);
  Body = replaceAll(Body, "{U}", L->U);
  Body = replaceAll(Body, "{MAX}", L->Max);
  return llvm::formatv("uint {0}({1}) {{ {2}; }", Name,
                       Arity == 1 ? "uint a" : "uint a, uint b", Body)
      .str();
}

/// Every intrinsic's definition, by its CUDA name: written once, looked up
/// for each call an OpenCL translation prints.
const std::map<std::string, std::string> &definitions() {
  static const std::map<std::string, std::string> All = [] {
    std::vector<std::string> Stems;
    for (const Simd &S : Table)
      Stems.push_back(S.Stem);
    for (const Comparison &C : Comparisons)
      for (const char *Kind : {"__vcmp", "__vset"})
        Stems.push_back(Kind + std::string(C.Name));
    std::map<std::string, std::string> Defs;
    for (const std::string &Stem : Stems)
      for (const Lanes &W : Widths) {
        std::string Name = Stem + W.Width;
        Defs[Name] = define(Name);
      }
    return Defs;
  }();
  return All;
}

} // namespace

std::optional<std::string> openclSimdIntrinsicName(llvm::StringRef CudaName) {
  if (!definitions().count(CudaName.str()))
    return std::nullopt;
  return "gpumerge_" + CudaName.drop_front(2).str();
}

std::string openclSimdIntrinsicDefinition(llvm::StringRef CudaName) {
  auto It = definitions().find(CudaName.str());
  return It == definitions().end() ? "" : It->second;
}

} // namespace gpumerge

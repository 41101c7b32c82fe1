//===- Type.cpp - KIR types -----------------------------------------------===//
#include "IR/Type.h"

namespace gpumerge {

static unsigned scalarBytes(ScalarKind K) {
  switch (K) {
  case ScalarKind::Void:
    return 0;
  case ScalarKind::Bool:
  case ScalarKind::Char:
  case ScalarKind::UChar:
    return 1;
  case ScalarKind::Short:
  case ScalarKind::UShort:
  case ScalarKind::Half:
  case ScalarKind::BFloat16:
    return 2;
  case ScalarKind::Int:
  case ScalarKind::UInt:
  case ScalarKind::Float:
    return 4;
  case ScalarKind::Long:
  case ScalarKind::ULong:
  case ScalarKind::Double:
    return 8;
  }
  return 0;
}

unsigned Type::elementBytes() const { return scalarBytes(Scalar) * lanes(); }

std::string scalarName(ScalarKind K, unsigned VectorWidth) {
  const char *Base = "int";
  switch (K) {
  case ScalarKind::Void:
    Base = "void";
    break;
  case ScalarKind::Bool:
    Base = "bool";
    break;
  case ScalarKind::Char:
    Base = "char";
    break;
  case ScalarKind::UChar:
    Base = "uchar";
    break;
  case ScalarKind::Short:
    Base = "short";
    break;
  case ScalarKind::UShort:
    Base = "ushort";
    break;
  case ScalarKind::Int:
    Base = "int";
    break;
  case ScalarKind::UInt:
    Base = "uint";
    break;
  case ScalarKind::Long:
    Base = "long";
    break;
  case ScalarKind::ULong:
    Base = "ulong";
    break;
  case ScalarKind::Float:
    Base = "float";
    break;
  case ScalarKind::Double:
    Base = "double";
    break;
  case ScalarKind::Half:
    Base = "__half";
    break;
  case ScalarKind::BFloat16:
    Base = "__nv_bfloat16";
    break;
  }
  if (VectorWidth == 1)
    return Base;
  return std::string(Base) + std::to_string(VectorWidth);
}

} // namespace gpumerge

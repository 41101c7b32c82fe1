//===- Type.h - KIR types ---------------------------------------*- C++ -*-===//
//
// A KIR type is a scalar or vector element type, optionally behind one pointer
// into an address space, optionally an array of fixed inner extents (a true
// 2-D array parameter `float (*a)[1024]`). The source spelling of a typedef'd
// element type (DATA_TYPE) is kept so the emitted kernel reads like the input.
//
//===----------------------------------------------------------------------===//
#ifndef GPUMERGE_IR_TYPE_H
#define GPUMERGE_IR_TYPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace gpumerge {

enum class ScalarKind {
  Void,
  Bool,
  Char,
  UChar,
  Short,
  UShort,
  Int,
  UInt,
  Long,
  ULong,
  Float,
  Double,
  /// CUDA's __half and __nv_bfloat16 (cuda_fp16.h, cuda_bf16.h): 16-bit
  /// floats in memory whose every operation rounds to the format. OpenCL
  /// without cl_khr_fp16 computes them as floats, rounded after each
  /// operation, and keeps them as half or ushort in global memory only.
  Half,
  BFloat16
};

enum class AddressSpace { Private, Global, Shared, Constant };

struct Type {
  ScalarKind Scalar = ScalarKind::Int;
  unsigned VectorWidth = 1;                   ///< float2 → 2
  bool IsPointer = false;                     ///< one level of pointer
  AddressSpace Space = AddressSpace::Private; ///< of the pointee
  bool IsConst = false; ///< of the pointee (or of the scalar)
  /// Of the pointee: kept in the signatures. gpumerge assumes of it what it
  /// assumes of every array, that nothing else writes what the kernel reads
  /// while it runs; only the reads the texture path caches are refused.
  bool IsVolatile = false;
  std::string TypedefName; ///< "DATA_TYPE" when spelled so
  /// A 64-bit integer the input spelled `long` (or a typedef of it: size_t,
  /// int64_t on LP64), not `long long`: CUDA prints it so, since a pointer
  /// to one does not convert to a pointer to the other (the host passes its
  /// size_t * to the launcher).
  bool SpelledLong = false;
  /// A char the input spelled `signed char` (HeCBench's ising: `signed char
  /// *lattice`): CUDA prints it so, since `char *` and `signed char *` do
  /// not convert to each other (the fallback's launch of the user's kernel
  /// passes the launcher's pointer).
  bool SpelledSigned = false;
  /// CUDA's 3-vector (float3, int3, uchar3): three lanes with no padding, 12
  /// bytes for float3, where OpenCL's float3 takes four lanes. An OpenCL
  /// translation spells it as a struct (gpumerge_float3).
  bool Packed = false;
  std::vector<std::int64_t> InnerExtents; ///< float (*a)[N] → {N}

  static Type scalar(ScalarKind K) {
    Type T;
    T.Scalar = K;
    return T;
  }
  static Type pointer(ScalarKind K, AddressSpace S, bool Const = false) {
    Type T = scalar(K);
    T.IsPointer = true;
    T.Space = S;
    T.IsConst = Const;
    return T;
  }

  /// The type of one element reached through the pointer (and all inner
  /// extents): a private scalar or vector.
  Type element() const {
    Type T = *this;
    T.IsPointer = false;
    T.Space = AddressSpace::Private;
    T.IsConst = false;
    T.IsVolatile = false;
    T.InnerExtents.clear();
    return T;
  }
  /// One lane of a vector type (float of float4), a private scalar.
  Type lane() const {
    Type T = element();
    T.VectorWidth = 1;
    T.Packed = false;
    T.TypedefName.clear();
    return T;
  }
  bool isFloating() const {
    return Scalar == ScalarKind::Float || Scalar == ScalarKind::Double ||
           isHalfPrecision();
  }
  /// A 16-bit float (__half, __nv_bfloat16): arithmetic on it rounds to 16
  /// bits, which no reordering may change, and nothing but CUDA stores it
  /// natively.
  bool isHalfPrecision() const {
    return Scalar == ScalarKind::Half || Scalar == ScalarKind::BFloat16;
  }
  bool isInteger() const { return !isFloating() && Scalar != ScalarKind::Void; }
  /// A scalar long, unsigned long, size_t: arithmetic in 64 bits.
  bool is64BitInteger() const {
    return !IsPointer && VectorWidth == 1 &&
           (Scalar == ScalarKind::Long || Scalar == ScalarKind::ULong);
  }
  /// Lanes one element occupies in memory: OpenCL's 3-vectors take four,
  /// CUDA's (Packed) three.
  unsigned lanes() const {
    return VectorWidth == 3 && !Packed ? 4 : VectorWidth;
  }
  /// Bytes of one element (vector included).
  unsigned elementBytes() const;

  bool operator==(const Type &O) const {
    return Scalar == O.Scalar && VectorWidth == O.VectorWidth &&
           Packed == O.Packed && IsPointer == O.IsPointer && Space == O.Space &&
           IsConst == O.IsConst && IsVolatile == O.IsVolatile &&
           InnerExtents == O.InnerExtents;
  }
  bool operator!=(const Type &O) const { return !(*this == O); }
};

/// "float", "unsigned int", "float2" (the builtin spelling, no typedef).
std::string scalarName(ScalarKind K, unsigned VectorWidth = 1);

} // namespace gpumerge

#endif

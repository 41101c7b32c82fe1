// A helper of the user's in a namespace, defined in a header.
#pragma once
namespace util {
__host__ __device__ __forceinline__ int words(int bits) {
  return bits <= 5 ? 1 : (1 << (bits - 5));
}
} // namespace util

// Batch test input: a header with no kernel (the __global__ in this comment
// does not count), so a batch does not take it.
#pragma once
__device__ inline float squared(float v) { return v * v; }
static const char *Name = "__global__ in a string";

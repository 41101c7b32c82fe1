// A library of the user's: compiled in its own file, linked with -rdc.
__device__ float lib_transform(float x);

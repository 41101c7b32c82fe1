// The scale kernel, launched from scale.cu and from transpose.cu: a kernel
// other files see through a header keeps its meaning as written (gpumerge
// passes it through; see docs/cli.md, gpumerge-nvcc).
#pragma once

__global__ void scale(float *v, float f, int n);

// Host side: v[i] *= f on the device, for n elements.
void scaleOnDevice(float *v, float f, int n);

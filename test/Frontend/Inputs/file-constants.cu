// clang-format off
// File-scope constants, read as their values and printed by their names.
const int TAPS = 7;
static const float kScale = 0.1f;
constexpr double kDegToRad = 3.141592654 / 180.0;
const int OFFSET = -3;
namespace {
const unsigned LOW_BITS = 0xFu;
}
namespace limits {
const int CAP = 9;
// Within its namespace, the constant's plain name names it.
__global__ void capped(int *y, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = min(x[i], CAP);
}
}
__device__ int counter;

// A window of TAPS inputs per output: the loop bound is a known trip.
__global__ void window(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
      s += x[i * TAPS + k];
    y[i] = kScale * s + OFFSET;
  }
}

__global__ void to_radians(double *y, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * kDegToRad - OFFSET;
}

__global__ void low_bits(unsigned *y, const unsigned *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] & LOW_BITS;
}

// What is not a constant of the file stays refused, with its reason.
__global__ void from_device_var(int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = counter;
}

__global__ void from_namespace(int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = limits::CAP;
}

// A test harness's header, as benchmark suites write them: host code that
// nvcc's host compiler takes and Clang's CUDA mode does not (isfinite on a
// float in host code resolves to Clang's device-only overloads).
#include <cmath>

template <class D, class T> int count_bad(D *, const T *v, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]))
      bad++;
  return bad;
}

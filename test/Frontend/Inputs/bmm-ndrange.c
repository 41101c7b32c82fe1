/* Runs gpumerge_bmm_ndrange, the NDRange helper of grids-3d.cl's bmm
   (h100: tiles of 128 x 128), on a few launches; prints what it returns,
   the global and local sizes and the edge launches. */
#include "bmm.h"
#include <stdio.h>

static void t(size_t nx, size_t ny, size_t nz, int w, int h, int batch) {
  size_t naive[3] = {nx, ny, nz}, g[3], l[3];
  gpumerge_edges e;
  uintptr_t a = (uintptr_t)1 << 40, b = (uintptr_t)2 << 40,
            c = (uintptr_t)3 << 40;
  int r = gpumerge_bmm_ndrange(naive, w, h, 29, batch, a, b, c, g, l, &e), i;
  printf("%d %zu %zu %zu / %zu %zu %zu", r, g[0], g[1], g[2], l[0], l[1],
         l[2]);
  for (i = 0; r && i < e.count; i++)
    printf(" | %zu %zu %zu", e.global[i][0], e.global[i][1], e.global[i][2]);
  printf("\n");
}

int main(void) {
  t(256, 256, 3, 256, 256, 3); /* whole tiles, 3 layers */
  t(320, 256, 3, 300, 256, 3); /* edge columns, each over the 3 layers */
  t(256, 256, 2, 256, 256, 3); /* the naive NDRange misses a layer */
  return 0;
}

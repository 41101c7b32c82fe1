// clang-format off
// A thread's own array (`unsigned char state[2]`), written element by
// element: each merged copy needs its own. Every thread reads sbox[3] and
// sbox[5], which thread merge shares.
#pragma gpumerge size(num=1048576)
__global__ void cipher(const int num, const unsigned char *__restrict__ plains,
                       const unsigned char *__restrict__ sbox,
                       unsigned char *__restrict__ ciphers) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < num) {
    unsigned char state[2];
    state[0] = plains[gid] ^ sbox[3];
    state[1] = plains[gid] ^ sbox[5];
    unsigned char mixed = state[0] | state[1];
    ciphers[gid] = mixed;
  }
}

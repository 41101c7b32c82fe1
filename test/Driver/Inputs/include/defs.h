// A size the kernel reads, from a header found with -- -I.
#define SCALE 3.0f

// Sizes and the element type, as benchmark suites keep them in a header.
#ifdef LARGE_DATASET
#define NX 4000
#else
#define NX 1024
#endif
typedef float DATA_TYPE;

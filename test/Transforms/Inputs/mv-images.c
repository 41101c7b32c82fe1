/* A host program for the texture variant of kernels/mv.cu written as
 * OpenCL: it includes the generated header (-include mv.texture.h), builds
 * mv.texture.cl on the first OpenCL device (PoCL), and runs y = A x twice:
 * mv_naive on the buffers, and mv, optimized, on the images that
 * gpumerge_mv_images() makes over the same buffers, with the NDRange that
 * gpumerge_mv_ndrange() gives, then mv_edge over the rows mv's whole tiles
 * leave, as the gpumerge_edges it fills says. Both results must agree. A second call of
 * the image helper with an element count over the device's image limit
 * must refuse (return 0, no images).
 *
 * Usage: mv-images KERNEL.cl H W   (H at least one optimized tile)
 * Prints the number of edge launches ("edges: N"), then "images: ok" or the
 * first difference; exits 1 on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  char *s;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    return NULL;
  }
  s[n] = 0;
  fclose(f);
  return s;
}

#define CHECK(x)                                                               \
  do {                                                                         \
    cl_int e_ = (x);                                                           \
    if (e_ != CL_SUCCESS) {                                                    \
      printf("%s failed: %d\n", #x, e_);                                       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_program program;
  cl_kernel naive, opt, edge;
  gpumerge_edges edges;
  cl_int err;
  cl_mem a, x, y_naive, y_opt, a_img, x_img;
  const char *src;
  int h, w, i;
  float *ha, *hx, *r0, *r1;
  size_t naive_global[2], global[2], local[2];
  if (argc != 4)
    return 2;
  src = slurp(argv[1]);
  h = atoi(argv[2]);
  w = atoi(argv[3]);
  if (!src)
    return 2;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  program = clCreateProgramWithSource(context, 1, &src, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL));
  naive = clCreateKernel(program, "mv_naive", &err);
  CHECK(err);
  opt = clCreateKernel(program, "mv", &err);
  CHECK(err);
  edge = clCreateKernel(program, "mv_edge", &err);
  CHECK(err);

  ha = malloc(sizeof(float) * (size_t)h * (size_t)w);
  hx = malloc(sizeof(float) * (size_t)w);
  r0 = malloc(sizeof(float) * (size_t)h);
  r1 = malloc(sizeof(float) * (size_t)h);
  for (i = 0; i < h * w; ++i)
    ha[i] = (float)((i * 37 % 101) - 50) / 50.0f;
  for (i = 0; i < w; ++i)
    hx[i] = (float)((i * 13 % 29) - 14) / 14.0f;
  a = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     sizeof(float) * (size_t)h * (size_t)w, ha, &err);
  CHECK(err);
  x = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     sizeof(float) * (size_t)w, hx, &err);
  CHECK(err);
  y_naive = clCreateBuffer(context, CL_MEM_READ_WRITE,
                           sizeof(float) * (size_t)h, NULL, &err);
  CHECK(err);
  y_opt = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(float) * (size_t)h,
                         NULL, &err);
  CHECK(err);

  /* The naive launch: one work-item per row, rounded up to 256. */
  naive_global[0] = ((size_t)h + 255) / 256 * 256;
  naive_global[1] = 1;
  CHECK(clSetKernelArg(naive, 0, sizeof(cl_mem), &a));
  CHECK(clSetKernelArg(naive, 1, sizeof(cl_mem), &x));
  CHECK(clSetKernelArg(naive, 2, sizeof(cl_mem), &y_naive));
  CHECK(clSetKernelArg(naive, 3, sizeof(int), &w));
  CHECK(clSetKernelArg(naive, 4, sizeof(int), &h));
  CHECK(clEnqueueNDRangeKernel(queue, naive, 1, NULL, naive_global, NULL, 0,
                               NULL, NULL));

  /* Separate buffers: addresses far apart. */
  if (!gpumerge_mv_ndrange(naive_global, w, h, (uintptr_t)1 << 40,
                           (uintptr_t)2 << 40, (uintptr_t)3 << 40, global,
                           local, &edges)) {
    printf("ndrange: the optimized kernel should run at h=%d\n", h);
    return 1;
  }
  if (!gpumerge_mv_images(context, device, w, h, a, x, &a_img, &x_img) ||
      !a_img || !x_img) {
    printf("images: the helper made no images\n");
    return 1;
  }
  CHECK(clSetKernelArg(opt, 0, sizeof(cl_mem), &a_img));
  CHECK(clSetKernelArg(opt, 1, sizeof(cl_mem), &x_img));
  CHECK(clSetKernelArg(opt, 2, sizeof(cl_mem), &y_opt));
  CHECK(clSetKernelArg(opt, 3, sizeof(int), &w));
  CHECK(clSetKernelArg(opt, 4, sizeof(int), &h));
  CHECK(clEnqueueNDRangeKernel(queue, opt, 2, NULL, global, local, 0, NULL,
                               NULL));
  /* The edges: mv's arguments, buffers only, then the bounds. */
  CHECK(clSetKernelArg(edge, 0, sizeof(cl_mem), &a));
  CHECK(clSetKernelArg(edge, 1, sizeof(cl_mem), &x));
  CHECK(clSetKernelArg(edge, 2, sizeof(cl_mem), &y_opt));
  CHECK(clSetKernelArg(edge, 3, sizeof(int), &w));
  CHECK(clSetKernelArg(edge, 4, sizeof(int), &h));
  for (i = 0; i < edges.count; ++i) {
    CHECK(clSetKernelArg(edge, 5, sizeof(int), &edges.bounds[i][0]));
    CHECK(clSetKernelArg(edge, 6, sizeof(int), &edges.bounds[i][1]));
    CHECK(clEnqueueNDRangeKernel(queue, edge, 2, NULL, edges.global[i],
                                 edges.local, 0, NULL, NULL));
  }
  printf("edges: %d\n", edges.count);
  CHECK(clFinish(queue));
  CHECK(clEnqueueReadBuffer(queue, y_naive, CL_TRUE, 0,
                            sizeof(float) * (size_t)h, r0, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, y_opt, CL_TRUE, 0,
                            sizeof(float) * (size_t)h, r1, 0, NULL, NULL));
  for (i = 0; i < h; ++i)
    if (fabsf(r0[i] - r1[i]) > 1e-4f * (1.0f + fabsf(r0[i]))) {
      printf("images: y[%d] is %g, the naive kernel gives %g\n", i, r1[i],
             r0[i]);
      return 1;
    }
  clReleaseMemObject(a_img);
  clReleaseMemObject(x_img);

  /* Too many elements for an image: the helper refuses, makes none. */
  {
    size_t max = 0;
    int big_h;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof(max),
                          &max, NULL));
    big_h = (int)(max / (size_t)w + 1);
    if ((size_t)big_h * (size_t)w > max &&
        gpumerge_mv_images(context, device, w, big_h, a, x, &a_img, &x_img)) {
      printf("images: made an image of %zu elements over the limit %zu\n",
             (size_t)big_h * (size_t)w, max);
      return 1;
    }
    if (a_img || x_img) {
      printf("images: a refused call left an image\n");
      return 1;
    }
  }
  printf("images: ok\n");
  return 0;
}

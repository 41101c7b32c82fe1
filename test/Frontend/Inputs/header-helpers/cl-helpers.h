// Helpers of an OpenCL header: one reads the work-item position.
float twice(float v) { return 2.0f * v; }
float lanef(void) { return (float)(get_local_id(0) % 32); }

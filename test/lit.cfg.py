# lit configuration: every *.cu / *.cl / *.test under test/ carries its own
# RUN and CHECK lines (as clang-tidy and MLIR tests are written).
import os
import lit.formats

config.name = "gpumerge"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".cl", ".test"]
config.excludes = ["unit", "e2e", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.gpumerge_bin_dir), "..", "test")

# %gpumerge-nvcc before %gpumerge, which is its prefix.
config.substitutions.append(("%gpumerge-nvcc", os.path.join(config.gpumerge_bin_dir, "..", "gpumerge-nvcc", "gpumerge-nvcc")))
config.substitutions.append(("%gpumerge", os.path.join(config.gpumerge_bin_dir, "gpumerge")))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%build", config.gpumerge_build_dir))
config.substitutions.append(("%kernels", os.path.join(config.gpumerge_src_dir, "kernels")))
config.substitutions.append(("%examples", os.path.join(config.gpumerge_src_dir, "examples")))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%scripts", os.path.join(config.gpumerge_src_dir, "scripts")))
config.substitutions.append(("FileCheck", config.filecheck))
if config.nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", config.nvcc))
# A C compiler for host programs of the OpenCL outputs (linked with -lOpenCL).
import shutil
cc = shutil.which("cc") or shutil.which("gcc")
if cc:
    config.available_features.add("cc")
    config.substitutions.append(("%cc", cc))
config.environment["GPUMERGE_TARGETS_DIR"] = os.path.join(config.gpumerge_src_dir, "machine-descriptions")
# The suite checks verify and tune on PoCL, the same on a machine with a GPU:
# --device=auto finds no CUDA driver here (device.test says what it reports).
# The CUDA path runs on a GPU through scripts/verify-gpu.
config.environment["GPUMERGE_LIBCUDA"] = "/nonexistent/libcuda.so.1"
# gpumerge compiles every CUDA file it writes with nvcc (Driver/NvccCheck.h):
# about a second a file, which most tests, whose outputs the RUN lines
# compile themselves where it matters, do without. nvcc-check.test turns it
# on (env -u GPUMERGE_NO_NVCC_CHECK).
config.environment["GPUMERGE_NO_NVCC_CHECK"] = "1"
for var in ["HOME", "PATH", "OCL_ICD_VENDORS", "POCL_CACHE_DIR", "POCL_DEVICES"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# cuobjdump (scripts/bench-static reads SASS with it): the toolkit's, or the
# nvidia-cuda-cuobjdump wheel's that scripts/setup installs.
def find_cuobjdump():
    found = shutil.which("cuobjdump")
    if found or not config.nvcc:
        return found
    candidates = [os.path.join(os.path.dirname(config.nvcc), "cuobjdump")]
    try:
        import nvidia
        for base in nvidia.__path__:
            for sub in sorted(os.listdir(base)):
                candidates.append(os.path.join(base, sub, "bin", "cuobjdump"))
    except ImportError:
        pass
    return next((c for c in candidates if os.access(c, os.X_OK)), None)
if find_cuobjdump():
    config.available_features.add("cuobjdump")

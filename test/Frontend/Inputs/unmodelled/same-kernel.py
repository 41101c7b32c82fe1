"""Exit 0 when the definition of kernel NAME in IN (from `__global__ void
NAME(` to the first `}` at the start of a line) is in OUT byte for byte."""
import sys

src, out, name = sys.argv[1:4]
text = open(src).read()
begin = text.index("__global__ void " + name + "(")
end = text.index("\n}\n", begin) + 3
kernel = text[begin:end]
if kernel not in open(out).read():
    sys.exit(f"{out}: kernel '{name}' is not the input's byte for byte:\n{kernel}")

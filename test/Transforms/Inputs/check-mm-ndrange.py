"""Runs the NDRange helper gpumerge writes beside an optimized OpenCL mm
(gpumerge_mm_ndrange in HEADER) on the host, on cases built from the launch
in the JSON report: whole tiles (the optimized kernel, global = blocks x
work-group, no edges), a domain past whole tiles in X, Y or both (the
optimized kernel on the whole tiles and mm_edge over the columns right of
them and the rows below: global sizes in work-groups of 32 x 8, bounds
x0, x1, y0, y1), and each way a check can fail (the naive kernel, global =
the caller's, local = 0, no edges). Compiles a C program with CC... (e.g.
nvcc -x c).

Usage: check-mm-ndrange.py REPORT.json HEADER.h WORKDIR CC [ARGS...]
Prints one line per case and 'ok', or exits 1 naming the first wrong one."""
import json
import os
import re
import subprocess
import sys

report, header, work, cc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
launch = json.load(open(report))["kernels"][0]["variants"][0]["launch"]
bx, by = launch["block"]
tx, ty = (int(re.fullmatch(r"\(\w+\) / (\d+)", g).group(1)) for g in launch["grid"])
kt = 1
for p in launch["preconditions"]:
    m = re.match(r"k % (\d+) == 0", p)
    if m:
        kt = int(m.group(1))

A, B, C = "((uintptr_t)1 << 40)", "((uintptr_t)2 << 40)", "((uintptr_t)3 << 40)"
up = lambda n: (n + 15) // 16 * 16  # the naive NDRange: local 16 x 16
w, h, k = 2 * tx, 3 * ty, 2 * kt
# (name, naive global, w, h, k, a, b, c, expected result)
cases = [
    ("tiles", (up(w), up(h)), w, h, k, A, B, C, 1),
    ("rounded", (up(w) + 16, up(h) + 16), w, h, k, A, B, C, 1),
    ("w", (up(w + 1), up(h)), w + 1, h, k, A, B, C, 1),
    ("h", (up(w), up(h - 1)), w, h - 1, k, A, B, C, 1),
    ("both", (up(w + 3), up(h + 5)), w + 3, h + 5, k, A, B, C, 1),
    ("narrow", (up(tx - 1), up(h)), tx - 1, h, k, A, B, C, 0),
    ("small", (w - 16, up(h)), w, h, k, A, B, C, 0),
    ("unknown", (up(w), up(h)), w, h, k, "0", "0", "0", 0),
]
# Each pair of buffers the report wants disjoint: the second starts 64 bytes
# into the first.
for p in launch["preconditions"]:
    m = re.fullmatch(r"(\w) and (\w) do not overlap", p)
    if m:
        addr = {"a": A, "b": B, "c": C}
        addr[m.group(2)] = addr[m.group(1)] + " + 64"
        cases.append(("overlap-%s-%s" % m.groups(), (up(w), up(h)), w, h, k,
                      addr["a"], addr["b"], addr["c"], 0))
# A k past whole tiles of the loop: the remainder loop runs it.
cases.append(("k", (up(w), up(h)), w, h, k + 1, A, B, C, 1))

src = ["#include <stdio.h>", '#include "%s"' % os.path.abspath(header), "int main(void) {"]
for name, (gx, gy), cw, ch, ck, a, b, c, _ in cases:
    src.append(
        "  { size_t n[2] = {%d, %d}, g[2] = {7, 7}, l[2] = {7, 7};\n"
        "    gpumerge_edges e;\n"
        "    int r = gpumerge_mm_ndrange(n, %d, %d, %d, %s, %s, %s, g, l, &e), i;\n"
        '    printf("%s %%d %%zu %%zu %%zu %%zu", r, g[0], g[1], l[0], l[1]);\n'
        '    for (i = 0; i < e.count; i++)\n'
        '      printf(" | %%zu %%zu %%zu %%zu %%d %%d %%d %%d", e.global[i][0],\n'
        "             e.global[i][1], e.local[0], e.local[1], e.bounds[i][0],\n"
        "             e.bounds[i][1], e.bounds[i][2], e.bounds[i][3]);\n"
        '    printf("\\n"); }'
        % (gx, gy, cw, ch, ck, a, b, c, name))
src.append("  return 0;\n}")
c_file, exe = os.path.join(work, "ndrange.c"), os.path.join(work, "ndrange")
open(c_file, "w").write("\n".join(src) + "\n")
subprocess.run(cc + ["-o", exe, c_file], check=True)
lines = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split("\n")
rnd = lambda n, b: (n + b - 1) // b * b
for (name, (gx, gy), cw, ch, ck, *_rest), line in zip(cases, lines):
    want = _rest[-1]
    if want:
        expect = "%s 1 %d %d %d %d" % (name, cw // tx * bx, ch // ty * by, bx, by)
        dx, dy = cw // tx * tx, ch // ty * ty
        if dx < cw:  # the columns right of the tiles, every row
            expect += " | %d %d 32 8 %d %d 0 %d" % (rnd(cw - dx, 32), rnd(ch, 8), dx, cw, ch)
        if dy < ch:  # the rows below them
            expect += " | %d %d 32 8 0 %d %d %d" % (rnd(dx, 32), rnd(ch - dy, 8), dx, dy, ch)
    else:
        expect = "%s 0 %d %d 0 0" % (name, gx, gy)
    print(line)
    if line != expect:
        sys.exit("wrong: %r, expected %r" % (line, expect))
print("ok")

#!/usr/bin/env python3
"""Tests of genkernel.py: the same seed gives the same files; over a few
hundred seeds every shape, element type, language and construct the
generator offers is drawn at least once (so a change that stops drawing one
fails here, not silently in a campaign); every kernel names each parameter
once and writes only arrays it does not declare const."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genkernel  # noqa: E402

SEEDS = range(400)
WANTED = (
    [f"shape:{s}" for s in ["ew1", "ew2", "stencil1", "stencil2", "mv", "mm",
                             "tp", "conv2", "conv1", "outer", "rowred", "arr2d"]]
    + [f"type:{t}" for t in ["float", "double", "int", "unsigned"]]
    + ["typedef", "header", "helper", "c89-loops", "early-return", "loop-ne",
       "const-trip", "macro-trip", "scalar-param", "in-place", "select",
       "access-macro", "nested-loops", "stencil-two-sided", "mv-transposed",
       "mm-a-transposed", "mm-b-transposed", "global-accumulate", "row-on-x",
       "two-per-thread", "compound-store", "array-2d", "lower-bound",
       "constant-table", "layers", "unroll-pragma", "vector:float2",
       "vector:float3", "vector:float4", "grid-stride", "file-constant", "local-array", "local-array-init",
       "pointer-helper", "wide-position",
       "position-aliases", "half-arrays", "unguarded"]
    + [f"passthrough:{p}" for p in ["while", "do", "switch", "break",
                                     "continue", "modassign", "ptrarith"]])

failures = []
seen = set()
langs = set()
for seed in SEEDS:
    g1, src1, h1 = genkernel.generate(seed)
    g2, src2, h2 = genkernel.generate(seed)
    if (src1, h1) != (src2, h2):
        failures.append(f"seed {seed}: two runs differ")
    seen.update(g1.features)
    langs.add(g1.lang)
    names = [n for _, n in g1.params]
    if len(names) != len(set(names)):
        failures.append(f"seed {seed}: a parameter name twice: {names}")
    # Writes go to non-const arrays only (the generator's own bookkeeping).
    for decl, name in g1.params:
        if "const" in decl and re.search(r"\b%s\[[^]]*\](\[[^]]*\])?\s*[-+*]?=[^=]" % re.escape(name), src1):
            failures.append(f"seed {seed}: writes const array {name}")
missing = [f for f in WANTED if f not in seen]
if missing:
    failures.append("never drawn in %d seeds: %s" % (len(SEEDS), ", ".join(missing)))
if langs != {"cuda", "opencl"}:
    failures.append(f"languages drawn: {sorted(langs)}")
# The OpenCL and CUDA spellings of a seed differ only where the languages do.
g, cu, _ = genkernel.generate(7, lang="cuda")
g, cl, _ = genkernel.generate(7, lang="opencl")
if "__global__" not in cu or "__kernel" not in cl:
    failures.append("--lang does not choose the language")
for f in failures:
    print("FAIL:", f)
print(f"genkernel: {len(SEEDS)} seeds, {len(seen)} features drawn, "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)

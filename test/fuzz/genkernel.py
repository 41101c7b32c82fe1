#!/usr/bin/env python3
"""genkernel: random naive GPU kernels, Csmith/YARPGen style, for fuzzing
gpumerge (scripts/fuzz, the fuzz-slice ctest).

Usage: genkernel.py --seed S [--lang cuda|opencl] [--out DIR] [--name NAME]
                    [--known-gaps]

Writes DIR/NAME.cu or DIR/NAME.cl (and DIR/gen.h when the kernel includes
it) and prints one JSON line: the files, the language, sizes that suit the
kernel (for --size) and the features drawn. The same seed gives the same
kernel, byte for byte, on any Python 3.

Every kernel is a correct naive kernel, so any difference gpumerge's
--verify finds is gpumerge's:
  - deterministic: no atomics, no reads of what other threads write, no
    branch on a rounded float result (only on inputs as read), no division
    by anything but a non-zero literal;
  - race-free: a thread writes only its own output elements, at an index
    one-to-one with its position inside the guard (out[y * w + x] with
    x < w, out[x * h + y] with y < h, ...), and reads an array it writes
    only at those elements;
  - in bounds for any sizes the guards admit: indices are affine and
    non-negative (stencil offsets run forward, or the guard keeps the
    position off the edge), true 2-D arrays are indexed below their pitch
    (the pitch macro is the guard's bound);
  - no undefined arithmetic: integers stay small (verify fills int arrays
    with [-8, 8], unsigned with [0, 16]), shifts by literals below 32.
Most kernels are in the dialect gpumerge optimizes (kernels/README.md);
about one in ten carries a construct it must pass through unchanged
(while, do-while, switch, break, continue, `%=`, pointer arithmetic; some
of these it now handles) or a loop marked `#pragma unroll [4]`, which it
keeps. --known-gaps adds constructs known to be rejected today
(CUDA's float math functions sqrtf/fabsf/fminf/fmaxf: the prelude lacks
them), to check whether a fix landed.
"""
import argparse
import json
import os
import random
import re
import sys

# Element types: (name, literal maker, is float, is unsigned).
FLOAT_TYPES = ("float", "double")
INT_TYPES = ("int", "unsigned")


def rewrite_accesses(line, names, rewrite):
    """\p line with each access `name[...]` of an array of \p names (its
    brackets matched, indices holding accesses of their own) replaced by
    rewrite(access), left to right, name by name."""
    for name in names:
        out, i = [], 0
        pat = re.compile(r"\b%s\[" % re.escape(name))
        while True:
            m = pat.search(line, i)
            if not m:
                break
            j = access_end(line, m.end() - 1)
            out.append(line[i:m.start()] + rewrite(line[m.start():j]))
            i = j
        line = "".join(out) + line[i:]
    return line


def access_end(line, start):
    """The index just past the `]` matching the `[` at \p start."""
    depth, j = 0, start
    while True:
        depth += {"[": 1, "]": -1}.get(line[j], 0)
        if depth == 0:
            return j + 1
        j += 1


class Gen:
    def __init__(self, seed, lang=None, known_gaps=False):
        self.rng = random.Random(seed)
        # Draws of the 3-D grid feature, apart so that the kernels of the
        # seeds without it stay what they were.
        self.zrng = random.Random("layers-%d" % seed)
        # And of the size hints (`#pragma gpumerge size`), which steer the
        # passes that need the problem size (split-reduction, the model).
        self.hrng = random.Random("hints-%d" % seed)
        # And of rowred's strided form (rd's first phase), likewise apart.
        self.srng = random.Random("stride-%d" % seed)
        # And of vector arrays (float2 elements read a component at a time).
        self.vrng = random.Random("vector-%d" % seed)
        # And of grid-stride loops in place of a 1-D guard.
        self.grng = random.Random("gridstride-%d" % seed)
        # And of file-scope constants in place of a macro or a literal.
        self.crng = random.Random("constant-%d" % seed)
        # And of a thread's own array holding what it stores.
        self.lrng = random.Random("localarray-%d" % seed)
        # And of helpers taking pointers, which gpumerge inlines.
        self.prng = random.Random("ptrhelper-%d" % seed)
        # And of positions computed in 64 bits (size_t, long).
        self.wrng = random.Random("wide-%d" % seed)
        # And of positions spelled with locals naming the built-ins.
        self.arng = random.Random("alias-%d" % seed)
        # And of helpers defined in gen.h rather than the kernel's file.
        self.hhrng = random.Random("headerhelper-%d" % seed)
        # And of CUDA's __half arrays in place of float ones.
        self.fprng = random.Random("half-%d" % seed)
        # And of kernels without a guard, launched over exactly their sizes.
        self.urng = random.Random("unguarded-%d" % seed)
        # The size parameters the grid must equal (X, then Y) in a kernel
        # without a guard; the grid itself is `grid` once the sizes are final.
        self.grid_bounds = None
        self.grid = None
        self.pos_dims = {}  # thread position -> its dimension
        self.pos1_decl = None  # (body index, name, type) of pos1's declaration
        self.arrays1d = []  # names of the 1-D array parameters
        self.seed = seed
        r = self.rng
        self.lang = lang or ("cuda" if r.random() < 0.6 else "opencl")
        self.cuda = self.lang == "cuda"
        self.known_gaps = known_gaps
        self.features = []
        self.header = []  # lines of gen.h
        self.use_header = r.random() < 0.35
        self.top = []  # macros/typedefs in the main file
        self.helpers = []  # helper function definitions
        self.params = []  # (declaration, name)
        self.sizes = {}  # size parameter -> suggested value
        self.hint_sizes = {}  # size parameter -> its size hint, if not 4096
        self.size_rules = []  # callables fixing sizes so the domain is sane
        self.body = []
        self.indent = 1
        self.names = set()
        self.passthrough = None
        # Element type of the kernel's arrays.
        t = r.choices(["float", "double", "int", "unsigned"], [55, 12, 17, 16])[0]
        self.elem = t
        self.is_float = t in FLOAT_TYPES
        self.spelled = t
        if t == "unsigned" and r.random() < 0.5:
            self.spelled = "unsigned int" if self.cuda or r.random() < 0.5 else "uint"
        # A typedef for the element type (PolyBench's DATA_TYPE).
        if r.random() < 0.3:
            name = r.choice(["DATA_TYPE", "real_t", "elem_t", "value_type"])
            self.define(f"typedef {self.spelled} {name};")
            self.spelled = name
            self.feature("typedef")
        self.feature(f"type:{t}")
        if t == "double" and not self.cuda:
            self.top.insert(0, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable")

    # ------------------------------------------------------------------
    # Small helpers
    # ------------------------------------------------------------------
    def feature(self, f):
        if f not in self.features:
            self.features.append(f)

    def define(self, line):
        """A macro or typedef: in gen.h when the kernel includes it."""
        (self.header if self.use_header else self.top).append(line)

    def fresh(self, base):
        n, k = base, 2
        while n in self.names:
            n, k = f"{base}{k}", k + 1
        self.names.add(n)
        return n

    def emit(self, line):
        self.body.append("  " * self.indent + line)

    def open(self, line):
        self.emit(line + " {")
        self.indent += 1

    def close(self):
        self.indent -= 1
        self.emit("}")

    def lit(self, kind=None, small=False):
        """A literal of the element type, in one of its spellings."""
        r = self.rng
        kind = kind or self.elem
        if kind == "float":
            v = r.choice(["0.5f", "1.5f", "2.0f", "0.25f", "3.0f", "1.0f", "0.75f",
                          "1e-1f", "2.5E0f", "0.125f", "4.f"])
            return v
        if kind == "double":
            return r.choice(["0.5", "1.5", "2.0", "0.25", "3.0", "0.75", "1e-1",
                             "0.5f", "2.0f"])
        if kind == "int":
            return r.choice(["1", "2", "3", "5", "7", "0x3", "010", "-2", "4"])
        return r.choice(["1U", "2u", "3U", "5u", "0x10u", "7U", "100U", "0x3U",
                         "12u"])

    def const_table(self, index):
        """A file-scope constant table read at \p index modulo its size: in
        CUDA a __constant__ array the host fills (verify fills it with random
        values) or one with an initializer, in OpenCL a program-scope
        __constant array (initialized, as OpenCL requires)."""
        r = self.rng
        name = self.fresh(r.choice(["coef", "table", "weights", "lut"]))
        k = r.randint(3, 8)
        init = ", ".join(self.lit() for _ in range(k))
        if self.cuda and r.random() < 0.5:
            self.top.append(f"__constant__ {self.spelled} {name}[{k}];")
        elif self.cuda:
            self.top.append(f"__constant__ {self.spelled} {name}[{k}] = {{{init}}};")
        else:
            self.top.append(f"__constant {self.spelled} {name}[{k}] = {{{init}}};")
        self.feature("constant-table")
        return f"{name}[({index}) % {k}]"

    def size_param(self, name, lo=20, hi=80):
        name = self.fresh(name)
        self.params.append((f"int {name}", name))
        self.sizes[name] = self.rng.randint(lo, hi)
        return name

    def array_param(self, name, const):
        q = "const " if const else ""
        if self.cuda:
            decl = f"{q}{self.spelled} *{name}"
        else:
            decl = f"__global {q}{self.spelled} *{name}"
        self.params.append((decl, name))
        self.arrays1d.append(name)
        return name

    def array2d_param(self, name, const, pitch):
        q = "const " if const else ""
        g = "" if self.cuda else "__global "
        self.params.append((f"{g}{q}{self.spelled} (*{name})[{pitch}]", name))
        return name

    def scalar_param(self, name):
        self.params.append((f"{self.spelled} {name}", name))
        self.feature("scalar-param")
        return name

    # ------------------------------------------------------------------
    # Thread positions and guards
    # ------------------------------------------------------------------
    def position(self, dim):
        r = self.zrng if dim == 2 else self.rng
        d = "xyz"[dim]
        if self.cuda:
            forms = [f"blockIdx.{d} * blockDim.{d} + threadIdx.{d}",
                     f"threadIdx.{d} + blockIdx.{d} * blockDim.{d}",
                     f"blockDim.{d} * blockIdx.{d} + threadIdx.{d}"]
        else:
            forms = [f"get_global_id({dim})",
                     f"get_group_id({dim}) * get_local_size({dim}) + get_local_id({dim})"]
        return r.choice(forms)

    def layers(self):
        """Sometimes a 3-D grid: the z position (a layer) and its bound,
        (z, d); None otherwise."""
        r = self.zrng
        if r.random() >= 0.15:
            return None
        d = self.fresh(r.choice(["d", "nz", "depth", "batch"]))
        self.params.append((f"int {d}", d))
        self.sizes[d] = r.randint(2, 5)
        z = self.fresh(r.choice(["z", "layer", "bz"]))
        self.emit(f"int {z} = {self.position(2)};")
        self.feature("layers")
        return z, d

    def guard(self, conds):
        """Opens the bounds guard on \\p conds (pairs (pos, bound expr) for
        pos < bound, or (pos, '>=', lo) for lower bounds): an if block, or
        early returns; sometimes, for one 1-D bound, a grid-stride loop."""
        if self.grid_stride(conds):
            return self.close
        if self.unguarded(conds):
            return lambda: None
        r = self.rng
        atoms, negs = [], []
        for c in conds:
            if len(c) == 3:
                pos, _, lo = c
                atoms.append(f"{pos} >= {lo}")
                negs.append(f"{pos} < {lo}")
            else:
                pos, bound = c
                if r.random() < 0.15:
                    atoms.append(f"{bound} > {pos}")
                    negs.append(f"{bound} <= {pos}")
                else:
                    atoms.append(f"{pos} < {bound}")
                    negs.append(f"{pos} >= {bound}")
        if r.random() < 0.35:
            self.feature("early-return")
            if r.random() < 0.7 or len(negs) == 1:
                self.emit(f"if ({' || '.join(negs)})")
                self.emit("  return;")
            elif r.random() < 0.5:
                self.open(f"if ({' || '.join(negs)})")
                self.emit("return;")
                self.close()
            else:
                # One early return per bound (Rodinia's gaussian).
                self.feature("early-returns-split")
                for n in negs:
                    self.emit(f"if ({n}) return;")
            return lambda: None
        self.open(f"if ({' && '.join(atoms)})")
        return self.close

    def unguarded(self, conds):
        """Sometimes no guard at all, as the paper's own kernels are
        written: where every bound is a size parameter, one per dimension
        (no layers), the fuzzer launches exactly those sizes (--grid), so
        the kernel is the guarded one. The sizes are made large enough for
        tiles. True when the guard was left out."""
        if (self.urng.random() >= 0.12 or not 1 <= len(conds) <= 2
                or "layers" in self.features
                or any(len(c) != 2 or c[1] not in self.sizes for c in conds)
                or len({c[1] for c in conds}) != len(conds)
                or sorted(self.pos_dims.get(c[0], -1) for c in conds)
                != list(range(len(conds)))):
            return False
        # The grid in X, then Y, whichever order the guard names them in.
        by_dim = sorted(conds, key=lambda c: self.pos_dims[c[0]])
        self.grid_bounds = [c[1] for c in by_dim]
        for b in self.grid_bounds:
            self.sizes[b] = self.urng.choice([131, 197, 259, 300])
        self.feature("unguarded")
        return True

    def grid_stride(self, conds):
        """Sometimes `int i = pos; if (i < n) {` becomes the grid-stride
        loop `for (int i = pos; i < n; i += stride) {` (any grid covers
        n): where the guard is pos1's one bound and nothing since its
        declaration reads i. True when the loop was opened."""
        g = self.grng
        if (g.random() >= 0.2 or len(conds) != 1 or len(conds[0]) != 2
                or not self.pos1_decl or conds[0][0] != self.pos1_decl[1]):
            return False
        at, i, ty = self.pos1_decl
        if any(re.search(r"\b%s\b" % i, l) for l in self.body[at + 1:]):
            return False
        start = self.body.pop(at).strip()
        start = start[len(f"{ty} {i} = "):-1]
        if self.cuda:
            stride = g.choice(["blockDim.x * gridDim.x",
                               "gridDim.x * blockDim.x", "named"])
            if stride == "named":
                stride = self.fresh(g.choice(["stride", "nthreads", "step_"]))
                self.emit(f"int {stride} = blockDim.x * gridDim.x;")
        else:
            stride = g.choice(["get_global_size(0)",
                               "get_local_size(0) * get_num_groups(0)"])
        self.feature("grid-stride")
        self.open(f"for ({ty} {i} = {start}; {i} < {conds[0][1]}; "
                  f"{i} += {stride})")
        return True

    # ------------------------------------------------------------------
    # Expressions
    # ------------------------------------------------------------------
    def combine(self, terms, depth=0):
        """A random expression over \\p terms (expressions of the element
        type), using each at least once."""
        r = self.rng
        terms = list(terms)
        r.shuffle(terms)
        e = self.leaf(terms[0])
        for t in terms[1:]:
            e = self.binop(e, self.leaf(t))
        if r.random() < 0.3:
            e = self.binop(e, self.lit())
        return e

    def constant_decl(self, type_name):
        """How a file-scope constant of \p type_name is declared."""
        if self.cuda:
            q = self.crng.choice(["const", "static const", "constexpr"])
        else:
            q = self.crng.choice(["__constant", "constant"])
        return f"{q} {type_name}"

    def leaf(self, t):
        r = self.rng
        x = r.random()
        if x < 0.15:
            v = self.lit()
            if self.crng.random() < 0.15:
                c = self.fresh(self.crng.choice(["SCALE", "kAlpha", "WEIGHT"]))
                self.define(f"{self.constant_decl(self.spelled)} {c} = {v};")
                self.feature("file-constant")
                v = c
            return f"{v} * {t}"
        if x < 0.22 and self.helpers_avail:
            h = r.choice(self.helpers_avail)
            return f"{h}({t}, {self.lit()})"
        if x < 0.28:
            return self.unary(t)
        return t

    def unary(self, t):
        r = self.rng
        if self.is_float:
            if self.known_gaps and self.cuda and self.elem == "float" and r.random() < 0.5:
                self.feature("known-gap:f-math")
                f = r.choice(["fabsf", "fminf", "fmaxf"])
                return f"fabsf({t})" if f == "fabsf" else f"{f}({t}, {self.lit()})"
            f = r.choice(["fabs", "fmin", "fmax"])
            if f == "fabs":
                return f"fabs({t})"
            # fmin(double, 2.0f) is ambiguous among OpenCL's overloads.
            lit = self.lit()
            if self.elem == "double" and lit.endswith("f"):
                lit = lit[:-1]
            return f"{f}({t}, {lit})"
        if self.elem == "int":
            f = r.choice(["min", "max", "abs"])
            if f == "abs":
                return f"abs({t})"
            return f"{f}({t}, {self.lit()})"
        return r.choice([f"({t} >> 1)", f"({t} & 0xFu)", f"({t} | 1u)",
                         f"({t} ^ 0x5U)", f"({t} % 7u)", f"({t} / 3U)",
                         f"min({t}, 9U)"])

    def binop(self, a, b):
        r = self.rng
        ops = ["+", "-", "*"] if self.is_float or self.elem == "int" else \
            ["+", "*", "^", "|", "+"]
        op = r.choice(ops)
        return f"({a} {op} {b})" if r.random() < 0.5 else f"{a} {op} {b}"

    def select(self, read, a, b):
        """A branch on an input as read (never on a computed float)."""
        thr = self.lit()
        cmp = self.rng.choice(["<", ">", "<=", ">="])
        return f"({read} {cmp} {thr} ? {a} : {b})"

    # ------------------------------------------------------------------
    # Helpers, macros
    # ------------------------------------------------------------------
    def make_helpers(self):
        r = self.rng
        self.helpers_avail = []
        if r.random() < 0.3:
            name = self.fresh(r.choice(["combine", "madd", "scale2", "blend"]))
            q = "__device__ " if self.cuda else ""
            if self.cuda and r.random() < 0.3:
                q = "__device__ inline "
            if not self.cuda and r.random() < 0.3:
                q = "inline "
            t = self.spelled
            body = self.binop(self.binop("p", "q"), self.lit())
            self.helpers.append(f"{q}{t} {name}({t} p, {t} q) {{\n  return {body};\n}}")
            self.helpers_avail.append(name)
            self.feature("helper")

    def access_macro(self, array, ld):
        """#define A(r, c) a[(r) * ld + (c)], sometimes."""
        if self.rng.random() < 0.25:
            m = self.fresh(array.upper() + "_AT")
            self.define(f"#define {m}(r, c) {array}[(r) * ({ld}) + (c)]")
            self.feature("access-macro")
            return lambda row, col: f"{m}({row}, {col})"
        return lambda row, col: f"{array}[{row} * {ld} + {col}]"

    def trip(self, name_hint):
        """A loop bound: a size parameter (mostly), a literal or a macro."""
        r = self.rng
        x = r.random()
        if x < 0.15:
            n = r.choice([1, 2, 3, 4, 5, 7, 16, 32, 37, 64, 100, 96])
            self.feature("const-trip")
            return str(n), n
        if x < 0.25:
            n = r.choice([5, 8, 12, 31, 48, 100])
            m = self.fresh(name_hint.upper() + "_LEN")
            if self.crng.random() < 0.4:
                self.define(f"{self.constant_decl('int')} {m} = {n};")
                self.feature("file-constant")
            else:
                self.define(f"#define {m} {n}")
                self.feature("macro-trip")
            return m, n
        p = self.size_param(name_hint, 3, 60)
        return p, None

    # ------------------------------------------------------------------
    # Loops
    # ------------------------------------------------------------------
    def loop(self, it, bound, c89):
        """Opens `for` over it in [0, bound), in one of the canonical
        spellings; \\p c89: the counter is declared before."""
        r = self.rng
        decl = "" if c89 else "int "
        cond = r.choices(["<", "<=", "!="], [80, 12, 8])[0]
        if cond == "<=":
            b = f"{bound} - 1"
        else:
            b = bound
        if cond == "!=":
            self.feature("loop-ne")
        step = r.choice([f"{it}++", f"++{it}", f"{it} += 1", f"{it} = {it} + 1"])
        if self.passthrough == "unroll":
            self.emit("#pragma unroll" if r.random() < 0.5 else "#pragma unroll 4")
            self.feature("unroll-pragma")
            self.passthrough = "done"
        self.open(f"for ({decl}{it} = 0; {it} {cond} {b}; {step})")

    # ------------------------------------------------------------------
    # Shapes
    # ------------------------------------------------------------------
    def shape(self):
        r = self.rng
        shapes = [("ew1", 10), ("ew2", 9), ("stencil1", 7), ("stencil2", 7),
                  ("mv", 10), ("mm", 12), ("tp", 7), ("conv2", 7), ("conv1", 5),
                  ("outer", 7), ("rowred", 8), ("arr2d", 5)]
        name = r.choices([s for s, _ in shapes], [w for _, w in shapes])[0]
        self.feature("shape:" + name)
        return name

    def build(self):
        r = self.rng
        self.make_helpers()
        # Not `step`: an OpenCL built-in. Verify runs such a CUDA kernel
        # under another name, but an OpenCL output (--lang=opencl, which
        # the fuzzer asks for too) cannot define it (a warning says so).
        kname = self.fresh(r.choice(["kern", "k", "compute", "stage", "update",
                                     "apply", "op"]))
        shape = self.shape()
        self.c89 = r.random() < 0.35
        self.passthrough = None
        if r.random() < 0.1:
            self.passthrough = r.choice(["while", "do", "switch", "break",
                                         "continue", "modassign", "ptrarith",
                                         "unroll"])
        getattr(self, "shape_" + shape)()
        self.vector_arrays()
        self.half_arrays()
        if self.use_header and self.helpers and self.hhrng.random() < 0.5:
            # gpumerge lowers a header's helpers too, and writes them only in
            # a translation.
            self.header += self.helpers
            self.helpers = []
            self.feature("header-helper")
        qual = "__global__ void" if self.cuda else "__kernel void"
        if r.random() < 0.5:  # arrays first, sizes and scalars after
            self.params.sort(key=lambda p: "*" not in p[0])
        params = ", ".join(d for d, _ in self.params)
        out = [f"// genkernel seed={self.seed} lang={self.lang} "
               f"features={','.join(self.features)}"]
        if self.use_header and self.header:
            out.append('#include "gen.h"')
        out += self.top
        out += self.helpers
        if self.sizes and self.hrng.random() < 0.3:
            # GPU-sized problems: 4096 but for the small structural sizes
            # (filter widths, layers), which stay as suggested.
            hints = ", ".join(
                f"{n}={self.hint_sizes.get(n, v if v <= 9 else 4096)}"
                for n, v in sorted(self.sizes.items()))
            out.append(f"#pragma gpumerge size({hints})")
            self.feature("size-hints")
        out.append(f"{qual} {kname}({params}) {{")
        out += self.body
        out.append("}")
        src = "\n".join(out) + "\n"
        header = None
        if self.use_header and self.header:
            header = "// genkernel seed=%d: macros and typedefs\n#ifndef GEN_H\n#define GEN_H\n%s\n#endif\n" % (
                self.seed, "\n".join(self.header))
            self.feature("header")
        for rule in self.size_rules:
            rule(self.sizes)
        if self.grid_bounds:
            self.grid = [self.sizes[b] for b in self.grid_bounds]
        return src, header

    def vector_arrays(self):
        """Some 1-D arrays become arrays of 2-, 3- or 4-vectors (float2,
        uint4, CUDA's packed float3 or OpenCL's padded one, ...), each access reading or writing one component (`a[i].y`,
        `out[i].x += s`): the element's other components are inputs the
        kernel keeps, so the kernel stays naive and race-free."""
        v = self.vrng
        if (v.random() >= 0.15 or not self.arrays1d
                or "passthrough:ptrarith" in self.features
                or "pointer-helper" in self.features):
            return
        width = v.choice([2, 3, 4])
        base = {"float": "float", "double": "double", "int": "int",
                "unsigned": "uint"}[self.elem]
        vec = f"{base}{width}"
        chosen = [a for a in self.arrays1d if v.random() < 0.6] or [self.arrays1d[0]]
        self.feature(f"vector:{vec}")
        for k, (decl, name) in enumerate(self.params):
            if name in chosen:
                self.params[k] = (decl.replace(f"{self.spelled} *", f"{vec} *"), name)

        def components(line):
            return rewrite_accesses(
                line, chosen,
                lambda a: a + "." + v.choice("xyzw"[:width]))

        self.body = [components(l) for l in self.body]
        self.top = [components(l) for l in self.top]
        self.header = [components(l) for l in self.header]

    def half_arrays(self):
        """Some 1-D float arrays of a CUDA kernel become CUDA's __half
        (cuda_fp16.h), read as `__half2float(a[i])` and stored as `c[i] =
        __float2half(v)` (`c[i] += v` as c[i] = __float2half(
        __half2float(c[i]) + (v))): the kernel computes in float as
        before, its arrays 16 bits wide."""
        h = self.fprng
        if (h.random() >= 0.15 or not self.cuda or self.elem != "float"
                or not self.arrays1d or any(f.startswith("vector:")
                                            for f in self.features)
                or "passthrough:ptrarith" in self.features
                or "pointer-helper" in self.features):
            return
        # Only arrays the body alone names: an access macro would have to
        # read and store alike.
        free = [a for a in self.arrays1d
                if not any(re.search(r"\b%s\b" % re.escape(a), l)
                           for l in self.top + self.header + self.helpers)]
        chosen = [a for a in free if h.random() < 0.6] or free[:1]
        if not chosen:
            return

        def reads(line):
            return rewrite_accesses(line, chosen,
                                    lambda a: "__half2float(" + a + ")")

        store = re.compile(r"^(\s*)(%s)\[" % "|".join(map(re.escape, chosen)))
        body = []
        for line in self.body:
            m = store.match(line)
            if not m:
                new = reads(line)
                if re.search(r"__half2float\([^;]*\)\s*[-+*/]?=[^=]", new):
                    return  # a store not at a statement's start
                body.append(new)
                continue
            j = access_end(line, m.end() - 1)
            target = line[m.start(2):j]
            a = re.match(r"\s*([-+*/]?)=\s*(.*);\s*$", line[j:])
            if not a:
                return
            value = reads(a.group(2))
            if a.group(1):
                value = f"__half2float({target}) {a.group(1)} ({value})"
            index = reads(line[m.end() - 1:j])  # the target's own reads
            body.append(f"{m.group(1)}{m.group(2)}{index}"
                        f" = __float2half({value});")
        self.body = body
        for k, (decl, name) in enumerate(self.params):
            if name in chosen:
                self.params[k] = (decl.replace(f"{self.spelled} *", "__half *"),
                                  name)
        self.top.insert(0, "#include <cuda_fp16.h>")
        self.feature("half-arrays")

    # Each shape_* writes the kernel's parameters and body.

    def declare_position(self, name, dim):
        """`int name = position;`, or sometimes the position in 64 bits as
        code for large arrays computes it: `size_t i = (size_t)blockIdx.x *
        blockDim.x + threadIdx.x`, a long, or a 32-bit position widened.
        Returns the type."""
        self.pos_dims[name] = dim
        form = self.position(dim)
        a = self.arng
        if a.random() < 0.1:
            # `int tx = threadIdx.x; int bx = blockIdx.x;` (the CUDA samples)
            self.feature("position-aliases")
            d = "xyz"[dim]
            t = self.fresh(a.choice(["tx", "tid", "lid", "t"]) + "xyz"[dim])
            b = self.fresh(a.choice(["bx", "bid", "grp", "b"]) + "xyz"[dim])
            ty = a.choice(["int", "const int", "unsigned", "const unsigned"])
            if self.cuda:
                self.emit(f"{ty} {t} = threadIdx.{d};")
                self.emit(f"{ty} {b} = blockIdx.{d};")
                form = f"{b} * blockDim.{d} + {t}"
            else:
                self.emit(f"{ty} {t} = get_local_id({dim});")
                self.emit(f"{ty} {b} = get_group_id({dim});")
                form = f"{b} * get_local_size({dim}) + {t}"
        w = self.wrng
        if w.random() >= 0.12:
            self.emit(f"int {name} = {form};")
            return "int"
        self.feature("wide-position")
        ty = w.choice(["size_t", "long"])
        if self.cuda and w.random() < 0.7:
            d = "xyz"[dim]
            form = f"({ty})blockIdx.{d} * blockDim.{d} + threadIdx.{d}"
        self.emit(f"{ty} {name} = {form};")
        return ty

    def pos1(self):
        i = self.fresh(self.rng.choice(["i", "idx0", "tid", "gid", "row"]))
        ty = self.declare_position(i, 0)
        self.pos1_decl = (len(self.body) - 1, i, ty)
        return i

    def pos2(self, swap=False):
        r = self.rng
        x = self.fresh(r.choice(["x", "col", "gx", "j0"]))
        y = self.fresh(r.choice(["y", "row", "gy", "i0"]))
        if swap:  # the row mapped to x (madd_rowx)
            self.feature("row-on-x")
            self.declare_position(y, 0)
            self.declare_position(x, 1)
        else:
            self.declare_position(x, 0)
            self.declare_position(y, 1)
        return x, y

    def counters(self, names):
        """C89: the loop counters declared before the loops."""
        if self.c89 and names:
            self.feature("c89-loops")
            if self.rng.random() < 0.5:
                for n in names:
                    self.emit(f"int {n};")
            else:
                self.emit(f"int {', '.join(names)};")

    def acc_init(self):
        s = self.fresh(self.rng.choice(["sum", "s", "acc", "t"]))
        zero = {"float": "0.0f", "double": "0.0", "int": "0", "unsigned": "0u"}[self.elem]
        self.emit(f"{self.spelled} {s} = {zero};")
        return s

    def out_value(self, s, own_read=None):
        """What a thread stores: its result, scaled by alpha/beta or mixed
        with its own element's old value (an in-place update)."""
        r = self.rng
        x = r.random()
        if x < 0.25:
            alpha = self.scalar_param(self.fresh("alpha"))
            if own_read and r.random() < 0.6:
                beta = self.scalar_param(self.fresh("beta"))
                self.feature("in-place")
                return f"{alpha} * {s} + {beta} * {own_read}"
            return f"{alpha} * {s}"
        if x < 0.4 and own_read:
            self.feature("in-place")
            return f"{own_read} + {s}" if r.random() < 0.5 else f"{s} - {own_read}"
        if x < 0.5:
            return self.binop(s, self.lit())
        return s

    def store(self, target, value):
        r = self.rng
        if self.passthrough == "modassign" and not self.is_float:
            self.emit(f"{target} = {value};")
            self.emit(f"{target} %= {'5u' if self.elem == 'unsigned' else '5'};")
            self.feature("passthrough:modassign")
            self.passthrough = "done"
            return
        op = r.choices(["=", "+=", "-=", "*="], [80, 10, 5, 5])[0]
        if op != "=":
            self.feature("compound-store")
        if self.lrng.random() < 0.1:
            value = self.local_array(value)
        if self.prng.random() < 0.12 and self.pointer_helper_store(target, op, value):
            return
        self.emit(f"{target} {op} {value};")

    def device_qualifier(self):
        return "__device__ " if self.cuda else ""

    def pointer_helper_store(self, target, op, value):
        """`target op value;` through a helper of the kernel's that takes a
        pointer: `put(out, i, v)` storing dst[k], `put(out + i, v)` storing
        *dst, or the value passed back through a pointer to a local first.
        False where target is no element of a 1-D array."""
        g = self.prng
        m = re.match(r"^(\w+)\[([^\[\]]*)\]$", target)
        if not m:
            return False
        arr, idx = m.groups()
        q = self.device_qualifier()
        gq = "" if self.cuda else "__global "
        t = self.spelled
        name = self.fresh(g.choice(["put", "store_at", "emit"]))
        form = g.random()
        if form < 0.4:
            self.helpers.append(f"{q}void {name}({gq}{t} *dst, int k, {t} v) {{\n"
                                f"  dst[k] {op} v;\n}}")
            self.emit(f"{name}({arr}, {idx}, {value});")
        elif form < 0.7:
            self.helpers.append(f"{q}void {name}({gq}{t} *dst, {t} v) {{\n"
                                f"  *dst {op} v;\n}}")
            arg = f"{arr} + {idx}" if g.random() < 0.5 else f"&{arr}[{idx}]"
            self.emit(f"{name}({arg}, {value});")
        else:
            res = self.fresh("res")
            self.helpers.append(f"{q}void {name}({t} v, {t} *r) {{\n  *r = v;\n}}")
            self.emit(f"{t} {res};")
            self.emit(f"{name}({value}, &{res});")
            self.emit(f"{target} {op} {res};")
        self.feature("pointer-helper")
        return True

    def pointer_helper_read(self, array, base, index):
        """array[base + index] read through a helper that takes a pointer:
        `at(a + base, index)` returning p[k], or one that returns early
        (`if (k < 0) return 0; return p[k];`, index never negative)."""
        g = self.prng
        q = self.device_qualifier()
        gq = "" if self.cuda else "__global "
        t = self.spelled
        name = self.fresh(g.choice(["at", "fetch", "elem"]))
        if g.random() < 0.6:
            body = "  return p[k];"
        else:
            zero = {"float": "0.0f", "double": "0.0", "int": "0",
                    "unsigned": "0u"}[self.elem]
            body = f"  if (k < 0)\n    return {zero};\n  return p[k];"
        self.helpers.append(f"{q}{t} {name}({gq}const {t} *p, int k) {{\n{body}\n}}")
        self.feature("pointer-helper")
        if base is None:
            return f"{name}({array}, {index})"
        return f"{name}({array} + {base}, {index})"

    def local_array(self, value):
        """\p value through a thread's own array (`T part[3]`), filled
        by an initializer list, element by element or in a loop; returns
        what to store."""
        g = self.lrng
        k = g.randint(2, 4)
        a = self.fresh(g.choice(["part", "tmp", "vals", "regs"]))
        form = g.random()
        if form < 0.3:
            # An initializer list: the rest of the elements are zero.
            self.emit(f"{self.spelled} {a}[{k}] = {{{value}}};")
            self.feature("local-array-init")
            self.feature("local-array")
            return f"{a}[0] + {a}[{k - 1}]"
        self.emit(f"{self.spelled} {a}[{k}];")
        if form < 0.65:
            q = self.fresh("q")
            self.emit(f"for (int {q} = 0; {q} < {k}; {q}++)")
            self.emit(f"  {a}[{q}] = {value};")
        else:
            self.emit(f"{a}[0] = {value};")
            for e in range(1, k):
                self.emit(f"{a}[{e}] = {a}[{e - 1}];")
        self.feature("local-array")
        return f"{a}[{k - 1}]" if g.random() < 0.5 else f"{a}[0] + {a}[{k - 1}]"

    def maybe_passthrough(self, s, read):
        """A construct gpumerge passes through (or, for break and continue,
        keeps its loop as written), computing something deterministic into
        the accumulator \\p s."""
        p = self.passthrough
        if p in (None, "done", "modassign", "ptrarith", "unroll"):
            return
        self.feature("passthrough:" + p)
        one = {"float": "1.0f", "double": "1.0", "int": "1", "unsigned": "1u"}[self.elem]
        if p == "while":
            c = self.fresh("w")
            self.emit(f"int {c} = 0;")
            self.open(f"while ({c} < 3)")
            self.emit(f"{s} += {read};")
            self.emit(f"{c}++;")
            self.close()
        elif p == "do":
            c = self.fresh("w")
            self.emit(f"int {c} = 0;")
            self.open("do")
            self.emit(f"{s} += {one};")
            self.emit(f"{c} += 1;")
            self.indent -= 1
            self.emit(f"}} while ({c} < 2);")
        elif p == "switch":
            self.open(f"switch ({read} > {self.lit()} ? 1 : 0)")
            self.emit(f"case 1: {s} += {one}; break;")
            self.emit(f"default: {s} -= {one}; break;")
            self.close()
        elif p == "break":
            c = self.fresh("q")
            self.open(f"for (int {c} = 0; {c} < 8; {c}++)")
            self.emit(f"if ({c} == 3) break;")
            self.emit(f"{s} += {one};")
            self.close()
        elif p == "continue":
            c = self.fresh("q")
            self.open(f"for (int {c} = 0; {c} < 6; {c}++)")
            self.emit(f"if ({c} % 2 == 0) continue;")
            self.emit(f"{s} += {read};")
            self.close()
        self.passthrough = "done"

    def reads_row(self, array, ld, row, it):
        return f"{array}[{row} * {ld} + {it}]"

    # --- 1-D element-wise -----------------------------------------------
    def shape_ew1(self):
        r = self.rng
        n = self.size_param(r.choice(["n", "len", "count", "size"]))
        ins = [self.array_param(self.fresh(c), True) for c in r.sample("abxz", r.randint(1, 3))]
        inplace = r.random() < 0.4
        out = self.array_param(self.fresh(r.choice(["c", "y", "out", "dst"])), False)
        i = self.pos1()
        if r.random() < 0.25:
            # An interior (a Jacobi copy's `i >= 1`).
            self.feature("lower-bound")
            end = self.guard([(i, ">=", r.choice(["1", "2", "3"])), (i, n)])
        else:
            end = self.guard([(i, n)])
        reads = [f"{a}[{i}]" for a in ins]
        if self.prng.random() < 0.2:
            reads[-1] = self.pointer_helper_read(ins[-1], None, i)
        if r.random() < 0.2:
            reads.append(self.const_table(i))
        e = self.combine(reads)
        if r.random() < 0.3:
            e = self.select(reads[0], e, self.combine(reads[-1:]))
            self.feature("select")
        if self.passthrough == "ptrarith":
            p = self.fresh("p")
            cq = "const " if True else ""
            g = "" if self.cuda else "__global "
            self.emit(f"{g}{cq}{self.spelled} *{p} = {ins[0]} + {i};")
            e = self.binop(e, f"{p}[0]")
            self.feature("passthrough:ptrarith")
            self.passthrough = "done"
        if self.passthrough not in (None, "done", "modassign", "unroll"):
            s = self.acc_init()
            self.maybe_passthrough(s, reads[0])
            e = self.binop(e, s)
        own = f"{out}[{i}]" if inplace else None
        self.store(f"{out}[{i}]", self.out_value(e, own))
        if r.random() < 0.2:
            # A second output per thread: out2[2i] and out2[2i + 1].
            o2 = self.array_param(self.fresh("pair"), False)
            self.feature("two-per-thread")
            self.emit(f"{o2}[2 * {i}] = {reads[0]};")
            self.emit(f"{o2}[2 * {i} + 1] = {self.combine(reads)};")
        end()

    # --- 2-D element-wise -----------------------------------------------
    def shape_ew2(self):
        r = self.rng
        w = self.size_param(r.choice(["w", "nx", "cols", "width"]))
        h = self.size_param(r.choice(["h", "ny", "rows", "height"]))
        ins = [self.array_param(self.fresh(c), True) for c in r.sample("abde", r.randint(1, 3))]
        out = self.array_param(self.fresh(r.choice(["c", "out", "res"])), False)
        swap = r.random() < 0.2
        x, y = self.pos2(swap)
        zd = self.layers()
        conds = [(x, w), (y, h)] if r.random() < 0.7 else [(y, h), (x, w)]
        end = self.guard(conds + [zd] if zd else conds)
        at = self.access_macro(ins[0], w)
        if zd:  # one w x h plane per layer
            y = f"({zd[0]} * {h} + {y})"
        reads = [at(y, x)] + [f"{a}[{y} * {w} + {x}]" for a in ins[1:]]
        e = self.combine(reads)
        if r.random() < 0.25:
            e = self.select(reads[-1], e, reads[0])
            self.feature("select")
        if self.passthrough not in (None, "done", "modassign", "unroll", "ptrarith"):
            s = self.acc_init()
            self.maybe_passthrough(s, reads[0])
            e = self.binop(e, s)
        own = f"{out}[{y} * {w} + {x}]"
        self.store(own, self.out_value(e, own if r.random() < 0.4 else None))
        end()

    # --- stencils -------------------------------------------------------
    def shape_stencil1(self):
        r = self.rng
        n = self.size_param(r.choice(["n", "len"]), 12, 90)
        a = self.array_param(self.fresh("a"), True)
        out = self.array_param(self.fresh("b"), False)
        i = self.pos1()
        rad = r.randint(1, 3)
        two_sided = r.random() < 0.4
        if two_sided:
            self.feature("stencil-two-sided")
            offs = sorted(set(r.randint(-rad, rad) for _ in range(r.randint(2, 4))) | {0})
            conds = [(i, ">=", rad), (i, f"{n} - {rad}")]
            # The guard with a lower bound: kept as two atoms on i.
            end = self.guard(conds)
        else:
            offs = sorted(set(r.randint(0, 2 * rad) for _ in range(r.randint(2, 4))) | {0})
            end = self.guard([(i, f"{n} - {2 * rad}")])
        terms = [f"{a}[{i} + {o}]" if o > 0 else f"{a}[{i} - {-o}]" if o < 0 else f"{a}[{i}]"
                 for o in offs]
        self.store(f"{out}[{i}]", self.out_value(self.combine(terms)))
        end()

    def shape_stencil2(self):
        r = self.rng
        w = self.size_param(r.choice(["w", "nx"]), 8, 70)
        h = self.size_param(r.choice(["h", "ny"]), 8, 70)
        a = self.array_param(self.fresh("a"), True)
        out = self.array_param(self.fresh("b"), False)
        x, y = self.pos2()
        two_sided = r.random() < 0.4
        if two_sided:
            self.feature("stencil-two-sided")
            offs = [(0, 0), (0, -1), (0, 1), (-1, 0), (1, 0)]
            offs = [offs[0]] + r.sample(offs[1:], r.randint(1, 4))
            end = self.guard([(x, ">=", 1), (x, f"{w} - 1"), (y, ">=", 1), (y, f"{h} - 1")])
        else:
            offs = [(dx, dy) for dx in range(3) for dy in range(3)]
            offs = [(0, 0)] + r.sample(offs[1:], r.randint(1, 5))
            end = self.guard([(x, f"{w} - 2"), (y, f"{h} - 2")])

        def idx(dx, dy):
            row = y if dy == 0 else f"({y} + {dy})" if dy > 0 else f"({y} - {-dy})"
            col = x if dx == 0 else f"{x} + {dx}" if dx > 0 else f"{x} - {-dx}"
            return f"{a}[{row} * {w} + {col}]"
        terms = [idx(dx, dy) for dx, dy in offs]
        self.store(f"{out}[{y} * {w} + {x}]", self.out_value(self.combine(terms)))
        end()

    # --- mv / tmv -------------------------------------------------------
    def shape_mv(self):
        r = self.rng
        n = self.size_param(r.choice(["n", "h", "rows", "ny"]))
        trans = r.random() < 0.35
        if trans:
            self.feature("mv-transposed")
        mat = self.array_param(self.fresh(r.choice(["a", "mat", "A"])), True)
        vec = self.array_param(self.fresh(r.choice(["x", "v", "vec"])), True)
        out = self.array_param(self.fresh(r.choice(["y", "out", "res"])), False)
        m, mconst = self.trip("m")
        ld = m if not trans else n
        i = self.pos1()
        j = self.fresh(r.choice(["j", "k", "col"]))
        self.counters([j])
        end = self.guard([(i, n)])
        glob = r.random() < 0.25  # accumulate in the output itself
        own = f"{out}[{i}]"
        if glob:
            self.feature("global-accumulate")
            if r.random() < 0.5:
                zero = {"float": "0.0f", "double": "0.0", "int": "0", "unsigned": "0u"}[self.elem]
                self.emit(f"{own} = {zero};")
            s = own
        else:
            s = self.acc_init()
            self.maybe_passthrough(s, f"{vec}[{i}]")
        self.loop(j, m, self.c89)
        aread = f"{mat}[{i} * {ld} + {j}]" if not trans else f"{mat}[{j} * {ld} + {i}]"
        if self.prng.random() < 0.2:  # a row (column) pointer's element
            aread = (self.pointer_helper_read(mat, f"{i} * {ld}", j) if not trans
                     else self.pointer_helper_read(mat, f"{j} * {ld}", i))
        e = self.combine([aread, f"{vec}[{j}]"])
        if r.random() < 0.2:
            e = self.select(f"{vec}[{j}]", e, aread)
        self.emit(f"{s} += {e};")
        self.close()
        if not glob:
            self.store(own, self.out_value(s, own))
        end()

    # --- mm -------------------------------------------------------------
    def shape_mm(self):
        r = self.rng
        w = self.size_param(r.choice(["w", "nj", "n", "cols"]))
        h = self.size_param(r.choice(["h", "ni", "m", "rows"]))
        a = self.array_param(self.fresh(r.choice(["a", "A"])), True)
        b = self.array_param(self.fresh(r.choice(["b", "B"])), True)
        c = self.array_param(self.fresh(r.choice(["c", "C"])), False)
        k, kconst = self.trip("k")
        ta = r.random() < 0.2
        tb = r.random() < 0.15
        if ta:
            self.feature("mm-a-transposed")
        if tb:
            self.feature("mm-b-transposed")
        x, y = self.pos2()
        p = self.fresh(r.choice(["p", "l", "kk", "i"]))
        self.counters([p])
        # Batched (one product per layer) when neither operand is transposed.
        zd = None if ta or tb else self.layers()
        end = self.guard([(x, w), (y, h)] + ([zd] if zd else []))
        at_a = self.access_macro(a, k if not ta else h)
        ra = at_a(y, p) if not ta else at_a(p, y)
        rb = f"{b}[{p} * {w} + {x}]" if not tb else f"{b}[{x} * {k} + {p}]"
        own = f"{c}[{y} * {w} + {x}]"
        if zd:
            z = zd[0]
            ra = at_a(f"({z} * {h} + {y})", p)
            rb = f"{b}[({z} * ({k}) + {p}) * {w} + {x}]"
            own = f"{c}[({z} * {h} + {y}) * {w} + {x}]"
        glob = r.random() < 0.2
        if glob:
            self.feature("global-accumulate")
            s = own
        else:
            s = self.acc_init()
            self.maybe_passthrough(s, f"{a}[{y}]")
        self.loop(p, k, self.c89)
        e = self.binop(ra, rb) if r.random() < 0.7 else self.combine([ra, rb])
        if r.random() < 0.15:
            e = self.select(rb, e, ra)
        self.emit(f"{s} += {e};")
        self.close()
        if not glob:
            self.store(own, self.out_value(s, own))
        end()

    # --- transpose ------------------------------------------------------
    def shape_tp(self):
        r = self.rng
        w = self.size_param(r.choice(["w", "cols"]))
        h = self.size_param(r.choice(["h", "rows"]))
        src = self.array_param(self.fresh(r.choice(["in", "src", "a"])), True)
        dst = self.array_param(self.fresh(r.choice(["out", "dst", "b"])), False)
        x, y = self.pos2()
        end = self.guard([(x, w), (y, h)])
        read = f"{src}[{y} * {w} + {x}]"
        e = read if r.random() < 0.5 else self.combine([read])
        self.store(f"{dst}[{x} * {h} + {y}]", self.out_value(e))
        end()

    # --- convolution ----------------------------------------------------
    def shape_conv2(self):
        r = self.rng
        w = self.size_param(r.choice(["w", "width"]), 16, 70)
        h = self.size_param(r.choice(["h", "height"]), 16, 70)
        img = self.array_param(self.fresh(r.choice(["img", "in", "src"])), True)
        filt = self.array_param(self.fresh(r.choice(["filt", "f", "mask"])), True)
        out = self.array_param(self.fresh(r.choice(["out", "dst"])), False)
        fw, fwc = self.trip("fw")
        fh, fhc = self.trip("fh")
        # The filter fits in the image: fw <= w, fh <= h.
        if fwc is None:
            self.sizes[fw] = r.randint(1, 7)
        if fhc is None:
            self.sizes[fh] = r.randint(1, 7)
        wc = fwc or self.sizes[fw]
        hc = fhc or self.sizes[fh]
        self.sizes[w] = max(self.sizes[w], wc + r.randint(0, 30))
        self.sizes[h] = max(self.sizes[h], hc + r.randint(0, 30))
        x, y = self.pos2()
        fy = self.fresh("fy")
        fx = self.fresh("fx")
        self.counters([fy, fx])
        ow = f"({w} - {fw} + 1)"
        end = self.guard([(x, f"{w} - {fw} + 1"), (y, f"{h} - {fh} + 1")])
        s = self.acc_init()
        self.loop(fy, fh, self.c89)
        self.loop(fx, fw, self.c89)
        e = self.binop(f"{img}[({y} + {fy}) * {w} + {x} + {fx}]", f"{filt}[{fy} * {fw} + {fx}]")
        self.emit(f"{s} += {e};")
        self.close()
        self.close()
        self.store(f"{out}[{y} * {ow} + {x}]", self.out_value(s))
        end()

    def shape_conv1(self):
        r = self.rng
        n = self.size_param(r.choice(["n", "len"]), 20, 90)
        sig = self.array_param(self.fresh(r.choice(["sig", "in", "a"])), True)
        taps = self.array_param(self.fresh(r.choice(["taps", "f", "w"])), True)
        out = self.array_param(self.fresh(r.choice(["out", "y"])), False)
        m, mc = self.trip("m")
        if mc is None:
            self.sizes[m] = r.randint(1, 9)
        self.sizes[n] = max(self.sizes[n], (mc or self.sizes[m]) + r.randint(0, 40))
        i = self.pos1()
        j = self.fresh("j")
        self.counters([j])
        end = self.guard([(i, f"{n} - {m} + 1")])
        s = self.acc_init()
        self.loop(j, m, self.c89)
        self.emit(f"{s} += {self.binop(f'{sig}[{i} + {j}]', f'{taps}[{j}]')};")
        self.close()
        self.store(f"{out}[{i}]", self.out_value(s, f"{out}[{i}]"))
        end()

    # --- outer product --------------------------------------------------
    def shape_outer(self):
        r = self.rng
        w = self.size_param(r.choice(["w", "n"]))
        h = self.size_param(r.choice(["h", "m"]))
        u = self.array_param(self.fresh(r.choice(["a", "u"])), True)
        v = self.array_param(self.fresh(r.choice(["b", "v"])), True)
        c = self.array_param(self.fresh(r.choice(["c", "out"])), False)
        x, y = self.pos2()
        end = self.guard([(x, w), (y, h)])
        e = self.combine([f"{u}[{y}]", f"{v}[{x}]"])
        own = f"{c}[{y} * {w} + {x}]"
        self.store(own, self.out_value(e, own if r.random() < 0.5 else None))
        end()

    # --- per-row reduction, nested loops --------------------------------
    def shape_rowred(self):
        r = self.rng
        sub = self.srng.random()
        if sub < 0.3:
            return self.shape_chunksum()
        if sub < 0.45:
            return self.shape_csr()
        n = self.size_param(r.choice(["n", "rows"]))
        a = self.array_param(self.fresh("a"), True)
        out = self.array_param(self.fresh(r.choice(["out", "y"])), False)
        m1, c1 = self.trip("m")
        nested = r.random() < 0.5
        if nested:
            m2, c2 = self.trip("q")
            self.feature("nested-loops")
        i = self.pos1()
        j = self.fresh("j")
        l = self.fresh("l")
        self.counters([j, l] if nested else [j])
        end = self.guard([(i, n)])
        s = self.acc_init()
        self.maybe_passthrough(s, f"{a}[{i}]")
        self.loop(j, m1, self.c89)
        if nested:
            self.loop(l, m2, self.c89)
            # a is (m1 * m2) x n, column i.
            idx = f"({j} * {m2} + {l}) * {n} + {i}"
            e = self.combine([f"{a}[{idx}]"])
            self.emit(f"{s} += {e};")
            self.close()
        else:
            e = self.combine([f"{a}[{j} * {n} + {i}]"])
            self.emit(f"{s} += {e};")
        self.close()
        self.store(f"{out}[{i}]", self.out_value(s, f"{out}[{i}]"))
        end()

    def shape_chunksum(self):
        """rd's first phase: thread i of nt sums a[i], a[i + nt], ..."""
        r = self.rng
        self.feature("chunk-stride")
        nt = self.size_param("nt")
        n = self.size_param(r.choice(["n", "len"]), 80, 400)
        self.hint_sizes[n] = 1 << 24  # rd's 16M elements in 4096 chunks
        a = self.array_param(self.fresh("a"), True)
        out = self.array_param(self.fresh(r.choice(["out", "partial"])), False)
        i = self.pos1()
        j = self.fresh("j")
        self.counters([j])
        end = self.guard([(i, nt)])
        s = self.acc_init()
        decl = "" if self.c89 else "int "
        self.open(f"for ({decl}{j} = {i}; {j} < {n}; {j} += {nt})")
        e = self.combine([f"{a}[{j}]"])
        self.emit(f"{s} += {e};")
        self.close()
        self.store(f"{out}[{i}]", self.out_value(s, f"{out}[{i}]"))
        end()

    def shape_csr(self):
        """CSR spmv's rows: thread i sums a[j] for j from ptr[i] to
        ptr[i + 1], bounds read from memory (split-reduction gives each row
        a warp)."""
        r = self.rng
        self.feature("rows-from-memory")
        n = self.size_param(r.choice(["n", "rows", "dim"]))
        g = "" if self.cuda else "__global "
        ptr = self.fresh(r.choice(["ptr", "rowStart", "offsets"]))
        self.params.append((f"{g}const int *{ptr}", ptr))
        a = self.array_param(self.fresh(r.choice(["val", "a"])), True)
        out = self.array_param(self.fresh(r.choice(["out", "y"])), False)
        i = self.pos1()
        j = self.fresh("j")
        self.counters([j])
        end = self.guard([(i, n)])
        s = self.acc_init()
        decl = "" if self.c89 else "int "
        if r.random() < 0.5:
            lo, hi = self.fresh("start"), self.fresh("stop")
            if self.c89:
                self.counters([lo, hi])
                self.emit(f"{lo} = {ptr}[{i}];")
                self.emit(f"{hi} = {ptr}[{i} + 1];")
            else:
                self.emit(f"int {lo} = {ptr}[{i}];")
                self.emit(f"int {hi} = {ptr}[{i} + 1];")
        else:
            lo, hi = f"{ptr}[{i}]", f"{ptr}[{i} + 1]"
        self.open(f"for ({decl}{j} = {lo}; {j} < {hi}; {j}++)")
        e = self.combine([f"{a}[{j}]"])
        self.emit(f"{s} += {e};")
        self.close()
        self.store(f"{out}[{i}]", self.out_value(s, f"{out}[{i}]"))
        end()

    # --- true 2-D arrays ------------------------------------------------
    def shape_arr2d(self):
        r = self.rng
        pitch = self.fresh(r.choice(["NX", "PITCH", "COLS"]))
        pv = r.choice([16, 24, 33, 40, 64])
        # The pitch bounds the X positions, so every row index stays in its row.
        self.define(f"#define {pitch} {pv}")
        self.feature("array-2d")
        h = self.size_param(r.choice(["h", "rows"]))
        a = self.array2d_param(self.fresh("a"), True, pitch)
        mm = r.random() < 0.5
        if mm:
            b = self.array2d_param(self.fresh("b"), True, pitch)
        c = self.array2d_param(self.fresh("c"), False, pitch)
        x, y = self.pos2()
        k = self.fresh("k")
        if mm:
            self.counters([k])
        end = self.guard([(x, pitch), (y, h)])
        if mm:
            # b has pitch rows as well: k < pitch.
            s = self.acc_init()
            self.loop(k, pitch, self.c89)
            self.emit(f"{s} += {self.binop(f'{a}[{y}][{k}]', f'{b}[{k}][{x}]')};")
            self.close()
            e = s
        else:
            e = self.combine([f"{a}[{y}][{x}]"])
        own = f"{c}[{y}][{x}]"
        self.store(own, self.out_value(e, own if r.random() < 0.4 else None))
        end()


def generate(seed, lang=None, known_gaps=False):
    g = Gen(seed, lang, known_gaps)
    src, header = g.build()
    return g, src, header


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--lang", choices=["cuda", "opencl"])
    ap.add_argument("--out", default=".")
    ap.add_argument("--name", default=None)
    ap.add_argument("--known-gaps", action="store_true")
    a = ap.parse_args()
    g, src, header = generate(a.seed, a.lang, a.known_gaps)
    name = a.name or f"gen{a.seed}"
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, name + (".cu" if g.cuda else ".cl"))
    files = [path]
    with open(path, "w") as f:
        f.write(src)
    if header:
        hp = os.path.join(a.out, "gen.h")
        with open(hp, "w") as f:
            f.write(header)
        files.append(hp)
    print(json.dumps({"seed": a.seed, "lang": g.lang, "files": files,
                      "sizes": g.sizes, "grid": g.grid,
                      "features": g.features}))


if __name__ == "__main__":
    main()

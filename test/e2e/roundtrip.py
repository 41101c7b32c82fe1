#!/usr/bin/env python3
"""End to end over kernels/:

1. Round trip: every kernel goes through KIR into both languages
   (--passes=none), the result runs against the input on PoCL (--verify,
   default sizes and sizes that are not multiples of 16), and every emitted
   CUDA file compiles with nvcc for sm_80 and sm_90 (one run) when nvcc is
   present.
   A CUDA kernel with a hand-written OpenCL twin (X.cu, X.cl) is optimized
   in both variants and verified against the twin (--reference), an oracle
   independent of gpumerge's CUDA-to-OpenCL translation.
2. Optimized: for each target in TARGETS, every kernel goes through the
   default global pipeline, and on TEXTURE_TARGETS the texture one too
   (--memory=both), with --verify at the
   default and the awkward sizes: exit 0, every verify run ok, and a kernel
   variant the report calls optimized with a launch plan ran its optimized
   path, and its fallback path too where a precondition other than "the
   domain holds a whole tile" depends on the sizes; at the awkward sizes the
   first run takes the optimized path (edge kernel, remainder loops) unless
   the domain is smaller than a tile or such a precondition fails. Every emitted CUDA file (both variants; the texture one in the
   target's form: texture objects on gtx285, gtx480 and hd5870, __ldg on
   h100) compiles with nvcc -arch=sm_90 (distinct files once; -c on h100,
   -cubin on the paper's targets, see compile_cuda); every
   emitted OpenCL header (NDRange helpers, and the texture variant's image
   helpers) compiles as C.
3. Launchers: each h100 CUDA file whose kernels verify ran through launch
   plans is linked into a host program that calls the launchers as verify's
   runs launched the input's kernels (naive grid, sizes), run with the CUDA
   runtime's launch entry points recorded (test/tools/launch-recorder.cpp,
   no GPU needed): the launchers must launch what verify ran and checked on
   PoCL, the same kernels (the optimized one and its edges, or the fallback)
   with the same grids and blocks. Likewise each emitted OpenCL header's
   NDRange helpers, called from a C program on verify's naive launches
   (every target), must say to enqueue what verify ran.

Usage: roundtrip.py GPUMERGE KERNELS_DIR [--nvcc NVCC] [--only NAME]
                    [--targets T,T] [--no-roundtrip] [--no-texture] [-j N]
Prints one line per check (PASS, FAIL, XFAIL or XPASS) and the counts and
time taken at the end; exits 1 on any FAIL or XPASS.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Kernels in the original compiler's dialect carry no guards: the launch
# domain comes from their #define'd sizes.
GRIDS = {"mm_paper_dialect.cu": "512,512", "mv_paper_dialect.cu": "2048",
         "crd_paper_dialect.cu": "4096",
         # Not whole tiles: the exchanged launch runs tp_paper_dialect_edge.
         "tp_paper_dialect.cu": "1000,504",
         # Flat pointers through macros: the launch bounds the arrays.
         "mm_paper_flat.cu": "1000,504", "mv_paper_flat.cu": "4000",
         "tmv_paper_flat.cu": "4000", "tp_paper_flat.cu": "1000,504"}
# Extra sizes per kernel for the awkward-size runs (names are its parameters).
AWKWARD = ["w=1003,h=37,k=29,n=1003,m=45,ni=37,nj=41,nk=29,nx=53,ny=61,fw=5,fh=3,nt=67,"
           "batch=3"]
# Targets of the optimized runs (part 2).
TARGETS = ["gtx285", "gtx480", "hd5870", "h100"]
# Targets whose texture variant is checked too (--memory=both): all four of
# the issue's targets (gtx285 and gtx480: objects, 32-thread warps; hd5870:
# objects, 64-wide wavefronts; h100: __ldg, 128-byte lines).
TEXTURE_TARGETS = {"gtx285", "gtx480", "hd5870", "h100"}
# Known failures of part 2, by (file, target, check), check "run" (the
# gpumerge runs and their verify paths) or "nvcc": while they fail they print
# XFAIL with the bug and do not count as failures; once they pass they print
# XPASS and fail, so that the entry goes.
XFAIL = {}


def expect(results, key):
    """Applies XFAIL[key] to a check's results."""
    bug = XFAIL.get(key)
    if not bug:
        return results
    what = f"{key[0]} -> {key[1]} {key[2]}"
    if all(ok for ok, _, _ in results):
        return [(False, f"XPASS {what}: {bug}", ["remove its XFAIL entry"])]
    return [(True, f"XFAIL {what}: {bug}", [])]


# (seconds, command) of every command run, for the summary of the slowest.
TIMES = []


def run(cmd, **kw):
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    TIMES.append((time.monotonic() - t, cmd))
    return p


def time_summary():
    """Where the time went: by tool and kind of run, and the slowest runs."""
    def kind(cmd):
        tool = os.path.basename(cmd[0])
        if tool in ("nvcc", "cc", "gcc", "clang"):
            return " ".join([tool] + [a for a in cmd if a in ("-c", "-cubin")])
        if "--passes=none" in cmd or any(a.startswith("--reference=") for a in cmd):
            return "gpumerge round trip"
        return next(("gpumerge " + a[9:] for a in cmd if a.startswith("--target=")),
                    "gpumerge")
    total = {}
    for s, cmd in TIMES:
        total[kind(cmd)] = total.get(kind(cmd), 0) + s
    print("time by kind of run (summed over workers): " + ", ".join(
        f"{k} {s:.0f} s" for k, s in sorted(total.items(), key=lambda x: -x[1])))
    for s, cmd in sorted(TIMES, key=lambda x: -x[0])[:8]:
        print(f"  {s:5.1f} s  {os.path.basename(cmd[0])} "
              + " ".join(os.path.basename(a) for a in cmd[1:]
                         if not a.startswith(("--out-dir", "-o", "/dev"))))


def check_kernel(gpumerge, path, nvcc, outdir):
    results = []
    name = os.path.basename(path)
    src_lang = "opencl" if path.endswith(".cl") else "cuda"
    for lang in ("cuda", "opencl"):
        ext = ".cu" if lang == "cuda" else ".cl"
        out = os.path.join(outdir, name + "." + lang + ext)
        cmd = [gpumerge, "--target=h100", "--passes=none", "--memory=global",
               "--lang=" + lang, "--verify", "--device=opencl", "--report=json", "-o", out, path]
        if name in GRIDS:
            cmd.insert(1, "--grid=" + GRIDS[name])
        runs = [cmd]
        if name not in GRIDS and name != "saxpy_app.cu":
            runs.append(cmd[:1] + ["--size=" + s for s in AWKWARD] + cmd[1:])
        for c in runs:
            label = f"{name} -> {lang}" + (" (awkward sizes)" if len(c) > len(cmd) else "")
            p = run(c)
            ok = p.returncode == 0
            why = p.stderr.strip().splitlines()[-1:] if not ok else []
            if ok:
                report = json.loads(p.stdout)
                for k in report["kernels"]:
                    for v in k["variants"]:
                        # A kernel split at global barriers is verified
                        # as its phases in order: never skipped.
                        allowed = ("ok",) if "split" in k else (None, "ok", "skipped")
                        if v.get("verify") not in allowed:
                            ok, why = False, [f"{k['name']}: verify {v.get('verify')}"]
            results.append((ok, label, why))
        # Against an independent reference: a CUDA kernel's hand-written
        # OpenCL twin in kernels/ (same kernels, same parameters), so
        # gpumerge's own CUDA-to-OpenCL translation is not on both sides.
        # (Not for kernels split at global barriers: their twins cannot
        # run phase by phase.)
        twin = os.path.splitext(path)[0] + ".cl"
        if (lang == "opencl" and src_lang == "cuda" and os.path.exists(twin)
                and "gpumerge_global_sync" not in open(path).read()):
            c = [gpumerge, "--target=h100", "--memory=both", "--verify", "--device=opencl",
                 "--report=json", "--reference=" + twin,
                 "--out-dir=" + os.path.join(outdir, "twin"), path]
            if name in GRIDS:
                c.insert(1, "--grid=" + GRIDS[name])
            p = run(c)
            ok = p.returncode == 0
            why = p.stderr.strip().splitlines()[-1:] if not ok else []
            if ok:
                for k in json.loads(p.stdout)["kernels"]:
                    for v in k["variants"]:
                        if v.get("verify") != "ok":
                            ok, why = False, [f"{k['name']} ({v['memory']}): "
                                              f"verify {v.get('verify')} "
                                              f"{v.get('verify_detail', '')}"]
            results.append((ok, f"{name} -> both variants against the "
                                f"hand-written {os.path.basename(twin)}", why))
        if lang == "cuda" and nvcc and os.path.exists(out):
            # Both architectures in one nvcc run: the host half is compiled
            # once. Kernels with global barriers (rd, crd) are split into
            # phases: no device-side call is left, plain nvcc builds them.
            c = [nvcc, "-gencode=arch=compute_80,code=sm_80",
                 "-gencode=arch=compute_90,code=sm_90", "-c", "-o", os.devnull, out]
            p = run(c)
            results.append((p.returncode == 0, f"{name} -> cuda: nvcc sm_80 and sm_90",
                            p.stderr.strip().splitlines()[:3]))
    return results


def size_dependent(pre):
    """Whether a launch precondition of the report can fail for some sizes:
    not a disjointness or alignment condition, and its condition (the text
    before the trailing explanation) names a size parameter."""
    if pre.endswith("do not overlap") or pre.endswith("(vector accesses)"):
        return False
    # A domain past whole tiles runs the optimized kernel and <name>_edge:
    # only one smaller than a tile falls back, which the sizes tried need
    # not reach.
    if pre.endswith("(the domain holds a whole tile)"):
        return False
    # split-reduction's lanes run past the loop's bound by Lanes steps: only
    # sizes within that of 2^31 fail, too large to verify (the launcher's
    # check is tested in test/Transforms/split-reduction.test).
    if pre.endswith("stay within their type)"):
        return False
    cond = pre.rsplit(" (", 1)[0]
    # #define'd sizes (WIDTH, all capitals in this corpus) are one value
    # per build, so verify cannot vary them.
    names = re.findall(r"[A-Za-z_]\w*", cond)
    return any(not re.fullmatch(r"[A-Z][A-Z0-9_]*", n) for n in names)


def check_optimized(gpumerge, path, target, outdir):
    """Part 2 for one kernel file on one target. Returns (results, emitted
    CUDA files, emitted OpenCL headers)."""
    results, cuda, headers = [], [], []
    name = os.path.basename(path)
    memories = ["global", "texture"] if target in TEXTURE_TARGETS else ["global"]
    base = [gpumerge, "--target=" + target,
            "--memory=" + ("both" if len(memories) > 1 else memories[0]),
            "--verify", "--device=opencl", "--report=json"]
    if name in GRIDS:
        base.append("--grid=" + GRIDS[name])
    runs = [("default sizes", [])]
    if name not in GRIDS and name != "saxpy_app.cu":
        runs.append(("awkward sizes", ["--size=" + s for s in AWKWARD]))
    planned = {}   # kernel -> whether a fallback is expected
    calls = {}     # emitted CUDA file -> [(kernel, sizes, launches)]
    awkward_optimized = set()  # kernels whose awkward-size run was optimized
    paths = {}     # kernel -> paths its verify runs took
    skipped = set()
    for i, (what, extra) in enumerate(runs):
        d = os.path.join(outdir, "opt", target, str(i))
        os.makedirs(d, exist_ok=True)
        stem, ext = os.path.splitext(name)
        outs = [os.path.join(d, f"{stem}.{m}{ext}") for m in memories]
        label = f"{name} -> {target} optimized ({what})"
        p = run(base + extra + ["--out-dir=" + d, path])
        ok, why = p.returncode == 0, []
        if not ok:
            why = [f"exit {p.returncode}"] + p.stderr.strip().splitlines()[-2:]
        else:
            try:
                report = json.loads(p.stdout)
            except ValueError as e:
                ok, why, report = False, [f"the report is not JSON: {e}"], {}
            for k in report.get("kernels", []):
                for v in k["variants"]:
                    kn = f"{k['name']} ({v.get('memory')})"
                    allowed = ("ok",) if "split" in k else (None, "ok", "skipped")
                    if v.get("verify") not in allowed:
                        ok = False
                        why.append(f"{kn}: verify {v.get('verify')}")
                    for r in v.get("verify_runs", []):
                        paths.setdefault(kn, set()).add(r["path"])
                        if r.get("verify") != "ok":
                            ok = False
                            why.append(f"{kn}: verify {r.get('verify')} "
                                       f"({r['path']} path, {r.get('sizes')})")
                    if v.get("verify") == "skipped":
                        skipped.add(kn)
                    if (ext == ".cu" and target == "h100") or ext == ".cl":
                        out = os.path.join(d, f"{stem}.{v.get('memory')}{ext}")
                        for r in v.get("verify_runs", []):
                            if r.get("launches") and r.get("verify") == "ok":
                                calls.setdefault(out, []).append(
                                    (k["name"], r.get("sizes", {}),
                                     r["launches"]))
                    launch = v.get("launch", {})
                    if v.get("status") == "optimized" and "fallback" in launch:
                        # (The grid is no condition: past whole tiles the
                        # edge kernel runs, and a kernel that guards its
                        # own domain rounds the grid up.)
                        planned[kn] = planned.get(kn, False) or any(
                            size_dependent(c)
                            for c in launch.get("preconditions", []))
                        # At awkward sizes the optimized kernel runs, with
                        # its edge kernel past whole tiles and remainder
                        # loops past whole loop tiles: it falls back only
                        # where the domain is smaller than a tile or another
                        # precondition fails.
                        first = (v.get("verify_runs") or [{}])[0]
                        because = first.get("fallback_because", "")
                        if (extra and first.get("path") == "fallback"
                                and "smaller than one tile" not in because
                                and "does not hold" not in because):
                            ok = False
                            why.append(f"{kn}: fell back at awkward sizes: "
                                       f"{because}")
                        if extra and first.get("path") == "optimized":
                            awkward_optimized.add(kn)
            for out in outs:
                if out.endswith(".cu") and os.path.exists(out):
                    cuda.append((out, name, target, calls.get(out, [])))
                h = os.path.splitext(out)[0] + ".h"
                if out.endswith(".cl") and os.path.exists(h):
                    headers.append((h, name, target, calls.get(out, [])))
        results.append((ok, label, why))
    for kn, want_fallback in sorted(planned.items()):
        if kn in skipped:
            continue
        want = {"optimized", "fallback"} if want_fallback else {"optimized"}
        got = paths.get(kn, set())
        label = (f"{name} -> {target} optimized: {kn} ran the "
                 + " and ".join(sorted(want)) + " path"
                 + ("s" if len(want) > 1 else ""))
        results.append((want <= got, label,
                        [f"paths run: {', '.join(sorted(got)) or 'none'}"]))
    for kn in sorted(awkward_optimized):
        results.append((True, f"{name} -> {target} optimized: {kn} ran the "
                        "optimized path at awkward sizes", []))
    return expect(results, (name, target, "run")), cuda, headers


def nvcc_mode(target):
    """-c for h100, whose files users build with nvcc; -cubin for the
    paper's targets: their device code compiled for sm_90 and the whole file,
    launchers included, parsed and type-checked by nvcc's front end, without
    the host compiler's pass over the launchers (the same generator as
    h100's; the lit tests build and link each launcher form, texture objects
    included, with nvcc -c). A third of the time of -c."""
    return "-c" if target == "h100" else "-cubin"


def compile_cuda(nvcc, out, target):
    c = [nvcc, "-arch=sm_90", nvcc_mode(target), "-o", os.devnull, out]
    p = run(c)
    return p.returncode == 0, p.stderr.strip().splitlines()[:3]


RECORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "tools", "launch-recorder.cpp")


def param_name(param):
    """The name a parameter declaration declares (its last identifier)."""
    return re.findall(r"[A-Za-z_]\w*", param)[-1]


def call_label(kernel, sizes):
    """How a driver names its call of \\p kernel at \\p sizes."""
    return f"{kernel} at {','.join(f'{k}={v}' for k, v in sorted(sizes.items()))}"


def launcher_params(text, kernel):
    """The parameters of gpumerge_launch_KERNEL in the emitted file after
    the launch configuration, as (is_pointer, name); None when the file has
    no such launcher."""
    m = re.search(r"static void gpumerge_launch_" + re.escape(kernel) +
                  r"\(dim3 \w+, dim3 \w+,\s+size_t \w+,\s+cudaStream_t \w+"
                  r"((?:,[^)]*)?)\)\s*\{", text)
    if not m:
        return None
    params = []
    for p in [p.strip() for p in m.group(1).split(",") if p.strip()]:
        params.append(("*" in p or "[" in p, param_name(p)))
    return params


def launch_driver(out, calls):
    """A host program that calls the launchers of \\p out as verify's runs
    launched the input's kernels: the naive grid and block, the sizes, and
    arrays at distinct 4 GiB-aligned addresses (the launchers read only
    their addresses). Returns (source, the launches each call must make)."""
    text = open(out).read()
    lines = [f'#include "{out}"', "#include <cstdio>",
             "// An array's address, as whatever pointer the launcher takes.",
             "struct Address {",
             "  unsigned long long Value;",
             "  template <typename T> operator T *() const { return (T *)Value; }",
             "};", "int main() {"]
    expected = []
    for kernel, sizes, launches in calls:
        params = launcher_params(text, kernel)
        if params is None:
            continue
        naive = launches[0]
        local = [max(1, x) for x in naive["local"]]
        grid = [max(1, g // b) for g, b in zip(naive["global"], local)]
        args = []
        for i, (pointer, name) in enumerate(params):
            args.append(f"Address{{{(i + 1) << 32:#x}ULL}}" if pointer
                        else str(sizes.get(name, 1)))
        label = call_label(kernel, sizes)
        lines.append(f'  printf("call {label}\\n");')
        lines.append(f"  gpumerge_launch_{kernel}(dim3({grid[0]}, {grid[1]}, {grid[2]}), "
                     f"dim3({local[0]}, {local[1]}, {local[2]}), 0, 0"
                     + "".join(", " + a for a in args) + ");")
        ran = []
        for l in launches:
            for r in l["ran"]:
                b = [max(1, x) for x in r["local"]]
                ran.append((r["kernel"],
                            tuple(max(1, g // x) for g, x in zip(r["global"], b)),
                            tuple(b)))
        expected.append((label, ran))
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n", expected


def recorded_launches(stdout):
    """The recorder's lines, by call: [(label, [(kernel, grid, block)])]."""
    calls = []
    for line in stdout.splitlines():
        if line.startswith("call "):
            calls.append((line[5:], []))
            continue
        m = re.match(r"launch (?:void )?([\w:]+)(?:<[^(]*)?\(.*\) grid (\d+),(\d+),(\d+) "
                     r"block (\d+),(\d+),(\d+) smem", line)
        if m and calls:
            g = tuple(int(x) for x in m.group(2, 3, 4))
            b = tuple(int(x) for x in m.group(5, 6, 7))
            calls[-1][1].append((m.group(1), g, b))
    return calls


def check_launches(nvcc, out, calls, recorder, include):
    """The CUDA launchers of \\p out run on verify's naive launches (with
    the runtime's launch entry points recorded, test/tools) make the
    launches verify made on OpenCL: the same kernels, grids and blocks, the
    fallback where verify's ran. Without calls, out compiles (nvcc -c)."""
    # A whole program (saxpy_app.cu) has a main of its own.
    if not calls or re.search(r"\bmain\s*\(", open(out).read()):
        return compile_cuda(nvcc, out, "h100")
    source, expected = launch_driver(out, calls)
    if not expected:
        return compile_cuda(nvcc, out, "h100")
    driver = os.path.splitext(out)[0] + ".launches.cu"
    exe = os.path.splitext(out)[0] + ".launches"
    with open(driver, "w") as f:
        f.write(source)
    p = run([nvcc, "-arch=sm_90", "-cudart", "shared", "-I", include, "-o",
             exe, driver])
    if p.returncode != 0:
        return False, p.stderr.strip().splitlines()[:3]
    p = run([exe], env=dict(os.environ, LD_PRELOAD=recorder))
    got = recorded_launches(p.stdout)
    why = []
    if p.returncode != 0:
        why.append(f"the launch driver exited {p.returncode}")
    for i, (label, want) in enumerate(expected):
        have = got[i][1] if i < len(got) else []
        if have != want:
            why.append(f"{label}: launched {have}, verify ran {want}")
    return not why, why[:4]


def ndrange_driver(h, calls):
    """A C program that calls the NDRange helpers of header \\p h as
    verify's runs launched the input's kernels, printing what each says to
    enqueue. Returns (source, the lines each call must print)."""
    text = open(h).read()
    lines = [f'#include "{h}"', "#include <stdio.h>", "int main(void) {"]
    expected = []
    for kernel, sizes, launches in calls:
        for stage in launches:
            k = stage["naive"]
            m = re.search(r"static inline int gpumerge_" + re.escape(k) +
                          r"_ndrange\(const size_t naive_global\[(\d)\],"
                          r"((?:[^)](?!size_t global))*),\s+size_t global\[\d\],"
                          r"\s+size_t local\[\d\](, gpumerge_edges \*edges)?\)", text)
            if not m:
                continue
            n = int(m.group(1))
            args, buffers = [], 0
            for p in [p.strip() for p in m.group(2).split(",") if p.strip()]:
                if p.startswith("uintptr_t"):
                    buffers += 1
                    args.append(f"(uintptr_t){buffers} << 40")
                else:
                    args.append(str(sizes.get(param_name(p), 1)))
            edges = bool(m.group(3))
            label = call_label(k, sizes)
            naive = ", ".join(str(x) for x in stage["global"][:n])
            lines.append("  {")
            # A helper's local size 0 is the caller's own (a plan that keeps
            # the naive launch): the caller enqueues with its naive one.
            own = ", ".join(str(max(1, x)) for x in stage["local"][:n])
            lines.append(f"    const size_t naive[{n}] = {{{naive}}};")
            lines.append(f"    const size_t own[{n}] = {{{own}}};")
            lines.append(f"    size_t global[{n}], local[{n}];")
            if edges:
                lines.append("    gpumerge_edges e;")
            call = (f"gpumerge_{k}_ndrange(naive" + "".join(", " + a for a in args)
                    + ", global, local" + (", &e" if edges else "") + ")")
            zu = ",".join(["%zu"] * n)
            lines.append(f'    printf("call {label}\\n");')
            lines.append(f"    if ({call}) {{")
            lines.append(f'      printf("run global {zu} local {zu}\\n", '
                         + ", ".join(f"global[{i}]" for i in range(n)) + ", "
                         + ", ".join(f"local[{i}] ? local[{i}] : own[{i}]"
                                     for i in range(n)) + ");")
            if edges:
                lines.append("      for (int i = 0; i < e.count; ++i)")
                lines.append(f'        printf("edge global {zu} local {zu}\\n", '
                             + ", ".join(f"e.global[i][{i}]" for i in range(n)) + ", "
                             + ", ".join(f"e.local[{i}]" for i in range(n)) + ");")
            lines.append("    } else {")
            lines.append('      printf("fallback\\n");')
            lines.append("    }")
            lines.append("  }")
            want = [f"call {label}"]
            ran = stage["ran"]

            def fmt(r):
                # (Verify's local size is 0 in a dimension it leaves out.)
                return ("global " + ",".join(str(x) for x in r["global"][:n])
                        + " local " + ",".join(str(max(1, x))
                                               for x in r["local"][:n]))
            if ran[0]["kernel"] != k:
                want.append("fallback")
            else:
                want.append("run " + fmt(ran[0]))
                want += ["edge " + fmt(r) for r in ran[1:]]
            expected.append((label, want))
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n", expected


def check_ndrange(cc, h, calls):
    """The NDRange helpers of header \\p h, called as verify's runs launched
    the input's kernels, say to enqueue what verify ran on PoCL: the
    optimized kernel with the same global and local sizes and the same edge
    ranges, or the fallback where verify's ran. Without calls, h compiles."""
    if not calls:
        return compile_header(cc, h)
    source, expected = ndrange_driver(h, calls)
    if not expected:
        return compile_header(cc, h)
    driver = os.path.splitext(h)[0] + ".ndrange.c"
    exe = os.path.splitext(h)[0] + ".ndrange"
    with open(driver, "w") as f:
        f.write(source)
    p = run([cc, "-std=c99", "-Wall", "-Werror", "-o", exe, driver])
    if p.returncode != 0:
        return False, p.stderr.strip().splitlines()[:3]
    p = run([exe])
    got = p.stdout.splitlines()
    want = [line for _, lines in expected for line in lines]
    if p.returncode != 0 or got != want:
        bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                   min(len(got), len(want)))
        return False, [f"exit {p.returncode}",
                       f"helpers said: {got[max(0, bad - 1):bad + 2]}",
                       f"verify ran:   {want[max(0, bad - 1):bad + 2]}"]
    return True, []


def compile_header(cc, h):
    # The header is meant for C host code: compile a file that includes it.
    c = [cc, "-std=c99", "-Wall", "-Werror", "-fsyntax-only", "-x", "c",
         "-include", h, "/dev/null"]
    p = run(c)
    return p.returncode == 0, p.stderr.strip().splitlines()[:3]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpumerge")
    ap.add_argument("kernels")
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--no-roundtrip", action="store_true")
    ap.add_argument("--no-texture", action="store_true",
                    help="part 2 checks the global variant only")
    a = ap.parse_args()
    start = time.monotonic()
    files = sorted(os.path.join(a.kernels, f) for f in os.listdir(a.kernels)
                   if f.endswith((".cu", ".cl")) and (not a.only or f.startswith(a.only)))
    targets = [t for t in a.targets.split(",") if t]
    if a.no_texture:
        TEXTURE_TARGETS.clear()
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    counts = {"passed": 0, "failed": 0, "xfail": 0}

    def show(results):
        for ok, label, why in results:
            known = label.startswith(("XFAIL ", "XPASS "))
            print(("" if known else "PASS " if ok else "FAIL ") + label,
                  flush=True)
            for w in why if not ok else []:
                print("     " + w)
            counts["xfail"] += ok and known
            counts["passed"] += ok and not known
            counts["failed"] += not ok

    with tempfile.TemporaryDirectory() as outdir:
        with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
            rt = [] if a.no_roundtrip else [
                pool.submit(check_kernel, a.gpumerge, f, a.nvcc, outdir)
                for f in files]
            opt = [pool.submit(check_optimized, a.gpumerge, f, t, outdir)
                   for t in targets for f in files]
            for fut in rt:
                show(fut.result())
            # Emitted files compile: each distinct CUDA file once (the
            # sizes rarely change the code), all headers.
            builds, seen = [], set()
            recorder = os.path.join(outdir, "liblaunch-recorder.so")
            if a.nvcc:
                p = run([a.nvcc, "-shared", "-cudart", "none", "-Xcompiler",
                         "-fPIC", "-o", recorder, RECORDER])
                if p.returncode != 0:
                    show([(False, "launch recorder: nvcc",
                           p.stderr.strip().splitlines()[:3])])
            for fut in opt:
                results, cuda, headers = fut.result()
                show(results)
                for out, name, target, calls in cuda if a.nvcc else []:
                    digest = hashlib.sha256(open(out, "rb").read()).hexdigest()
                    digest += json.dumps(calls, sort_keys=True)
                    if digest in seen:
                        continue
                    seen.add(digest)
                    label = os.path.relpath(out, os.path.join(outdir, "opt"))
                    if nvcc_mode(target) == "-c" and calls:
                        builds.append((f"{label}: nvcc sm_90, its launchers "
                                       "launch what verify ran",
                                       (name, target, "nvcc"),
                                       pool.submit(check_launches, a.nvcc, out,
                                                   calls, recorder, a.kernels)))
                        continue
                    mode = "" if nvcc_mode(target) == "-c" else " " + nvcc_mode(target)
                    builds.append((f"{label}: nvcc{mode} sm_90", (name, target, "nvcc"),
                                   pool.submit(compile_cuda, a.nvcc, out, target)))
                for h, name, target, calls in headers if cc else []:
                    label = os.path.relpath(h, os.path.join(outdir, "opt"))
                    what = ("its helpers say to enqueue what verify ran"
                            if calls else "compiles")
                    builds.append((f"{label}: cc (NDRange header), {what}",
                                   None, pool.submit(check_ndrange, cc, h, calls)))
            for label, key, fut in builds:
                ok, why = fut.result()
                show(expect([(ok, label, why)], key))
    time_summary()
    print(f"{counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['xfail']} expected failures (XFAIL) "
          f"in {time.monotonic() - start:.0f} s")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

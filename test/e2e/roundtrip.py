#!/usr/bin/env python3
"""End to end over kernels/: every kernel round-trips through KIR into both
languages, the result runs against the input on PoCL (--verify, default sizes
and sizes that are not multiples of 16), and every emitted CUDA file compiles
with nvcc for sm_80 and sm_90 when nvcc is present.

Usage: roundtrip.py GPUMERGE KERNELS_DIR [--nvcc NVCC] [--only NAME]
Prints one line per check and 'N passed, N failed' at the end; exits 1 on any
failure.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

# Kernels in the original compiler's dialect carry no guards: the launch
# domain comes from their #define'd sizes.
GRIDS = {"mm_paper_dialect.cu": "512,512", "mv_paper_dialect.cu": "2048"}
# Extra sizes per kernel for the awkward-size runs (names are its parameters).
AWKWARD = ["w=1003,h=37,k=29,n=1003,m=45,ni=37,nj=41,nk=29,nx=53,ny=61,fw=5,fh=3,nt=67"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check_kernel(gpumerge, path, nvcc, outdir):
    results = []
    name = os.path.basename(path)
    src_lang = "opencl" if path.endswith(".cl") else "cuda"
    for lang in ("cuda", "opencl"):
        ext = ".cu" if lang == "cuda" else ".cl"
        out = os.path.join(outdir, name + "." + lang + ext)
        cmd = [gpumerge, "--target=h100", "--passes=none", "--memory=global",
               "--lang=" + lang, "--verify", "--report=json", "-o", out, path]
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
                        if v.get("verify") not in (None, "ok", "skipped"):
                            ok, why = False, [f"{k['name']}: verify {v.get('verify')}"]
            results.append((ok, label, why))
        if lang == "cuda" and nvcc and os.path.exists(out):
            for arch in ("sm_80", "sm_90"):
                c = [nvcc, "-arch=" + arch, "-c", "-o", os.devnull, out]
                if "rd" in name.split(".")[0].split("_"):
                    c.insert(1, "-rdc=true")
                p = run(c)
                results.append((p.returncode == 0, f"{name} -> cuda: nvcc {arch}",
                                p.stderr.strip().splitlines()[:3]))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpumerge")
    ap.add_argument("kernels")
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    files = sorted(os.path.join(a.kernels, f) for f in os.listdir(a.kernels)
                   if f.endswith((".cu", ".cl")) and (not a.only or f.startswith(a.only)))
    passed = failed = 0
    with tempfile.TemporaryDirectory() as outdir:
        with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
            for results in pool.map(lambda f: check_kernel(a.gpumerge, f, a.nvcc, outdir), files):
                for ok, label, why in results:
                    print(("PASS " if ok else "FAIL ") + label)
                    for w in why if not ok else []:
                        print("     " + w)
                    passed += ok
                    failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

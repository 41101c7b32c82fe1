"""Checks bench-static's JSON for mm, tp, saxpy, vv and matmul_int on h100
(bench-static.test)."""
import json
import sys

rows = json.load(open(sys.argv[1]))["rows"]
by = {(r["kernel"], r["version"]): r for r in rows}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


for r in rows:
    check("error" not in r, "%s %s: %s" % (r["kernel"], r["version"],
                                          r.get("error")))
    check(r.get("registers", 0) > 0, "%s %s: registers" % (r["kernel"],
                                                           r["version"]))

naive = by[("mm", "naive")]["counts"]
# The naive loop reads a and b from global memory, nothing from shared.
check(naive["ops"].get("LDG.32", 0) > 0, "naive mm: LDG in its loop")
check(naive["bytes"]["shared_load"] == 0, "naive mm: no LDS")
check(naive["ffma"] > 0, "naive mm: FFMA in its loop")
# One step of the naive kernel is one FMA and two 4-byte loads per output.
check(by[("mm", "naive")]["fp_instructions"] == 1, "naive mm: 1 FFMA/step")
check(by[("mm", "naive")]["global_bytes"] == 8, "naive mm: 8 B/step")

opt = by[("mm", "global")]
c = opt["counts"]
check(opt.get("status") == "optimized", "mm global is optimized")
check(c["ffma"] > 0 and c["bytes"]["shared_load"] > 0,
      "global mm: FFMA and LDS in its hot loop")
# The tile loop unrolled whole, the hot loop is the one over tiles: its only
# global loads are the tiles' (a few per thread for 32 steps of k).
check(c["bytes"]["global_load"] * 8 <= c["bytes"]["shared_load"],
      "global mm: the hot loop reads global memory for more than its tiles")
check(opt["spill_bytes"] == 0, "global mm: no spills")
# The tile loop unrolled and b's tile grouped four columns to a thread, every
# shared read of the hot loop is 128 bits wide: 2 for a and 2 for b a step.
check(c["ops"].get("LDS.128", 0) > 0 and c["ops"].get("LDS.32", 0) == 0,
      "global mm: shared reads %s, not all 128-bit" %
      {k: v for k, v in c["ops"].items() if k.startswith("LDS")})
# The issue bound counts the tile step whole, its copies into shared memory
# with the FMAs: copies rolled with a division of their counter each put it
# at 67% (ncu on an H100: 68% of issue slots busy); counted and unrolled
# (AsyncPrefetch.cpp), at 85%.
check(opt["bounds"]["issue"] >= 0.8,
      "global mm: issue bound %s below 80%%" % opt["bounds"]["issue"])
check(c["ops"].get("LDGSTS.32", 0) >= 16,
      "global mm: the tile step's cp.async copies counted, got %s" %
      {k: v for k, v in c["ops"].items() if k.startswith("LDGSTS")})
# Staged tiles cut the global bytes per output step below the naive 8.
check(opt["global_bytes"] < 1, "global mm: < 1 global byte per step")
# Every lane reading its own words: 128 B/clock against 128 FFMA lanes.
smem = opt["bounds"]["smem"]
want = min(1.0, 1.0 / (opt["shared_bytes"] / opt["fp_instructions"]))
check(abs(smem - want) < 1e-3, "global mm: smem bound %s != %s" % (smem,
                                                                    want))
check(0 < smem < 1, "global mm: shared memory bounds it below peak")
# The mm target: an 8x8 register tile reads 16 words a step for 64 FMAs,
# so shared memory allows at least 90% of the FP32 peak (a 4x4 tile: 48%).
check(smem >= 0.9, "global mm: smem bound %s below 90%% of peak" % smem)
check(opt["bounds"]["smem"] <= opt["bounds"]["smem_broadcast"],
      "broadcast bound not below the distinct-word bound")
check(0 < opt["bounds"]["issue"] <= 1, "global mm: issue bound in (0, 1]")
check(opt["limit"] in ("smem", "issue", "dram"), "global mm: a limit")
check(opt["occupancy"] > 0 and opt["sm_fill"] == 1,
      "global mm: occupancy and a full grid at 4096")

tp = by[("tp", "naive")]
# A transpose reads and writes each element once: 8 bytes per output.
check(tp["per"] == "output" and tp["global_bytes"] == 8,
      "naive tp: 8 B/output, got %s" % tp["global_bytes"])
check(tp["counts"]["bytes"]["shared_load"] == 0, "naive tp: no LDS")
tpg = by[("tp", "global")]
check(tpg["counts"]["bar"] >= 1, "global tp: a barrier")
check(tpg["counts"]["bytes"]["shared_load"] > 0 and
      tpg["counts"]["bytes"]["shared_store"] > 0,
      "global tp: goes through a shared tile")
# The same 8 bytes per output (within the tile's padding).
check(8 <= tpg["global_bytes"] < 8.5, "global tp: %s B/output" %
      tpg["global_bytes"])

sx = by[("saxpy", "global")]
# The vectorized saxpy holds a whole tile's float4 path and its edge's scalar
# copies: an interior thread runs the first, 12 bytes per output as naive.
check(sx["status"] == "optimized" and sx["per"] == "output",
      "global saxpy: optimized, counted per output")
check(sx["counts"]["ops"].get("LDG.128", 0) == 2 and
      sx["counts"]["ops"].get("LDG.32", 0) == 0,
      "global saxpy: the float4 path alone, got %s" % sx["counts"]["ops"])
check(sx["global_bytes"] == by[("saxpy", "naive")]["global_bytes"] == 12,
      "saxpy: 12 B/output naive and global, got %s and %s" %
      (by[("saxpy", "naive")]["global_bytes"], sx["global_bytes"]))

vg = by[("vv", "global")]
# vv's 8x8 merged copies read a[y_k] and b[x_k] once each on their whole
# groups' branch (__restrict__, MergeCommon.cpp): 4 bytes stored and about 1
# read per output, where each copy re-reading both made the naive 12.
check(vg["status"] == "optimized" and vg["global_bytes"] < 6,
      "global vv: %s B/output, its copies' common reads not shared" %
      vg["global_bytes"])

mi = by[("matmul_int", "global")]
# An integer mm: its steps come from its multiply-adds, as mm's from its
# FFMA, so a tile of 32 steps counts as 32 (its loads, which tiling cuts,
# made it one: 32 instructions a step).
check(mi["per"] == "step" and mi["global_bytes"] < 1 and
      mi["instructions"] < 1.5 * opt["instructions"],
      "global matmul_int: %s instructions and %s global bytes a step "
      "(mm: %s)" % (mi["instructions"], mi["global_bytes"],
                    opt["instructions"]))

for f in failures:
    print("FAIL: " + f)
print("%d checks failed" % len(failures) if failures else "all checks passed")
sys.exit(1 if failures else 0)

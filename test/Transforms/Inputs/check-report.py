"""Checks a gpumerge --report=json --verify report of one optimized kernel:
each kernel's verify_runs ends with an optimized run (at the requested
sizes, when they hold a whole tile: <name>_edge computes the rest and a
remainder loop the iterations past whole loop tiles; else after a fallback
run there, at sizes raised until they do), every run ok; the block times
the merge factors is the tile."""
import json
import re
import sys

report = json.load(open(sys.argv[1]))
for k in report["kernels"]:
    for v in k["variants"]:
        assert v["status"] == "optimized", v
        launch = v["launch"]
        paths = [r["path"] for r in v["verify_runs"]]
        assert paths in (["optimized"], ["fallback", "optimized"]), paths
        assert all(r["verify"] == "ok" for r in v["verify_runs"])
        opt = v["verify_runs"][-1]["sizes"]
        for pre in launch["preconditions"]:
            m = re.match(r"\((\w+)\) >= (\d+)", pre)
            if m:
                assert opt[m.group(1)] >= int(m.group(2)), (pre, opt)
        tiles = [int(g.split(" / ")[1]) for g in launch["grid"]]
        block = launch["block"]
        # The optimized run launched the kernel over the whole tiles of the
        # domain in its blocks, then its edges.
        ran = v["verify_runs"][-1]["launches"][0]["ran"]
        assert ran[0]["kernel"] == k["name"], ran
        domain = [opt["w"], opt["h"]]
        grid = [g // b for g, b in zip(ran[0]["global"][:2], ran[0]["local"])]
        assert grid == [n // t for n, t in zip(domain, tiles)], \
            (ran[0], domain, tiles)
        assert ran[0]["local"][:2] == block, (ran[0], block)
        assert all(r["kernel"] == k["name"] + "_edge" for r in ran[1:]), ran
        assert len(ran) == 1 + sum(n % t != 0 for n, t in zip(domain, tiles))
        names = [p["name"] for p in v["passes"]]
        assert names == ["coalesce", "block-merge", "thread-merge"], names
        tm = v["passes"][2]["parameters"]
        fx, fy = (int(n) for n in tm["factor"].split("x"))
        assert tiles == [block[0] * fx, block[1] * fy], (tiles, block, tm)
        assert tm["block"] == "%dx%d" % tuple(block), (tm, block)
        res = launch["resources"]
        for key in ("registers", "shared_bytes", "blocks_per_sm"):
            assert isinstance(res[key], int) and res[key] > 0, (key, res)
print("ok")

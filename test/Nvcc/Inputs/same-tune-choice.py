"""Checks that a build (gpumerge-nvcc's report) chose the version --tune chose
(gpumerge's report) from the cache alone. Prints the choice; exits 1 if not."""
import json
import sys


def tune_of(path):
    report = json.load(open(path))
    files = report.get("files", [report])
    for f in files:
        for k in f["kernels"]:
            for v in k.get("variants", []):
                if k["name"] == "mm" and v["memory"] == "global" and "tune" in v:
                    return v["tune"]
    sys.exit("%s: no tune report for mm (global)" % path)


tuned, built = tune_of(sys.argv[1]), tune_of(sys.argv[2])
if tuned["chosen"] != built["chosen"] or built["timed"] != 0:
    sys.exit("tuned %r, built %r (timed %d)" % (tuned["chosen"], built["chosen"],
                                                built["timed"]))
print("tuned and built: %s; the build timed %d, took %d from the cache" %
      (built["chosen"], built["timed"], built["from_cache"]))

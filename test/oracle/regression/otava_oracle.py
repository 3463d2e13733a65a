"""Runs Apache Otava's change-point detection (the analysis API, no database or CLI) on series read as JSON
from stdin and prints what it finds as JSON. Used by test/oracle/regression.test.ts and
test/bench/regression.bench.ts; needs `pip install apache-otava==0.8.0` (.ci/run installs it).

stdin:  {"cases": [{"name": str, "values": [number | null], "window": int, "maxPValue": float,
                    "minMagnitude": float}]}
stdout: {"otava": version, "cases": [{"name", "weak": [index], "points": [{"index", "meanBefore",
         "meanAfter", "stdBefore", "stdAfter", "pValue" (null for NaN), "magnitude"}]}]}
"""
import json
import math
import sys
from importlib.metadata import version

import otava.analysis
from otava.analysis import compute_change_points, fill_missing

VERSION = version("apache-otava")
if not VERSION.startswith("0.8."):
    sys.exit(f"expected apache-otava 0.8.x, found {VERSION}")


def num(x):
    x = float(x)
    return None if math.isnan(x) else x


# compute_change_points returns the split's list after merge() has deleted from it in place, so the
# split's own output is recorded on the way into merge()
_merge = otava.analysis.merge
_weak = []


def recording_merge(change_points, *args, **kwargs):
    _weak[:] = [int(cp.index) for cp in change_points]
    return _merge(change_points, *args, **kwargs)


otava.analysis.merge = recording_merge


def run(case):
    values = [None if v is None else float(v) for v in case["values"]]
    fill_missing(values)
    # a list, not a numpy array: Otava's split slices lists per window but not arrays
    points, _ = compute_change_points(values, window_len=case["window"], max_pvalue=case["maxPValue"],
                                         min_magnitude=case["minMagnitude"])
    return {
        "name": case["name"],
        "weak": list(_weak),
        "points": [{"index": int(cp.index), "meanBefore": num(cp.stats.mean_1), "meanAfter": num(cp.stats.mean_2),
                    "stdBefore": num(cp.stats.std_1), "stdAfter": num(cp.stats.std_2),
                    "pValue": num(cp.stats.pvalue), "magnitude": num(cp.stats.change_magnitude())}
                   for cp in points],
    }


cases = json.load(sys.stdin)["cases"]
json.dump({"otava": VERSION, "cases": [run(c) for c in cases]}, sys.stdout)

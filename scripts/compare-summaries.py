#!/usr/bin/env python3
# Compares two `leasesim run` outputs of the same scenarios and seeds, run by
# run: verdict and violations, figures, trace hash. Exit 1 when a verdict or
# a figure set differs (trace hashes are counted, not judged: a change to the
# trace's vocabulary moves them without changing behaviour).
#   scripts/compare-summaries.py BEFORE/summary.json AFTER/summary.json
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
ra = {(r["scenario"], r["seed"]): r for r in a["runs"]}
rb = {(r["scenario"], r["seed"]): r for r in b["runs"]}
assert ra.keys() == rb.keys(), "different runs"
diff_verdict = diff_fig = diff_hash = 0
for k in sorted(ra):
    x, y = ra[k], rb[k]
    if x["ok"] != y["ok"] or [(v["kind"], v["message"]) for v in x.get("violations", [])] != [(v["kind"], v["message"]) for v in y.get("violations", [])]:
        diff_verdict += 1; print("verdict differs:", k)
    if x.get("figures") != y.get("figures"):
        diff_fig += 1; print("figures differ:", k)
    if x.get("trace_hash") != y.get("trace_hash"):
        diff_hash += 1
print(f"{len(ra)} runs compared: {diff_verdict} verdicts differ, {diff_fig} figure sets differ, {diff_hash} trace hashes differ")
sys.exit(1 if diff_verdict or diff_fig else 0)

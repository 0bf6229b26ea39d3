#!/usr/bin/env python3
"""GEMMs alone on an SM partition (c3bench `sweep --what gemm_sms` records: each Table I GEMM on 8..132
SMs) against c3sim's prediction from a hardware file, nothing fitted to them here: one program per
record, the GEMM on a stream masked to the record's SMs.

    python3 hardware/measurements/h100x1/compare_sm_sweep.py RECORDS.jsonl... [--c3sim build/sim/cli/c3sim] [--hardware h100-sxm]

Prints mean |error| (predicted / measured - 1), signed mean and RMS, overall and per SM count."""
import argparse
import json
import math
import statistics
import subprocess
import tempfile
import os
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("records", nargs="+")
    ap.add_argument("--c3sim", default="build/sim/cli/c3sim")
    ap.add_argument("--hardware", default="h100-sxm")
    ap.add_argument("--full", type=int, default=132, help="the GPU's SMs (a record on all of them is unmasked)")
    a = ap.parse_args()
    recs = []
    for path in a.records:
        with open(path) as f:
            recs += [json.loads(line) for line in f]
    gemms = [r for r in recs if r["kind"] == "iso_gemm" and r.get("cus")]
    lines = ["programs:"]
    for i, r in enumerate(gemms):
        lines += [f"  - name: p{i}",
                  # a mask of every SM is the whole GPU (c3sim rejects a mask that leaves none over)
                  f"    streams: [{{name: s, cus: {r['cus']}}}]" if r["cus"] < a.full else "    streams: [{name: s}]",
                  f"    kernels: [{{name: g, stream: s, gemm: {{tag: {r['tag']}, m: {r['m']}, n: {r['n']}, "
                  f"k: {r['k']}, dtype: {r.get('dtype', 'bf16')}}}}}]",
                  "    policies: [base]"]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        programs = f.name
    try:
        out = subprocess.run([a.c3sim, "run", programs, "--hardware", a.hardware, "--no-attribution",
                              "--format", "jsonl"], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(programs)
    pred = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("kind") == "program":
            pred[r["program"]] = r["step_us"]
    errs, by_cus = [], defaultdict(list)
    for i, r in enumerate(gemms):
        e = pred[f"p{i}"] / r["time_us"] - 1
        errs.append(e)
        by_cus[r["cus"]].append(e)
    def line(name, es):
        return (f"{name:>8} n={len(es):3d} mean|err| {100 * statistics.mean(abs(e) for e in es):5.1f}%  "
                f"signed {100 * statistics.mean(es):+5.1f}%  rms {100 * math.sqrt(statistics.mean(e * e for e in es)):5.1f}%")
    print(f"{a.hardware}: {len(gemms)} GEMMs alone on SM partitions")
    for cus in sorted(by_cus):
        print(line(f"{cus} SMs", by_cus[cus]))
    print(line("all", errs))


if __name__ == "__main__":
    main()

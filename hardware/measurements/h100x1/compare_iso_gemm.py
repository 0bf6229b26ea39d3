#!/usr/bin/env python3
"""Isolated GEMMs on one H100 (h100_gemm_dtype.jsonl: Table I, 4096^3 and a one-wave shape in bf16,
fp16 and fp8) against c3sim's prediction from a hardware file, with nothing fitted to them here.

    python3 hardware/measurements/h100x1/compare_iso_gemm.py [--c3sim build/sim/cli/c3sim] [--hardware h100-sxm]

Prints the error (predicted / measured - 1) per record, then mean |error|, signed mean and worst
per dtype. The layout variants (`.tn`, `.fast_accum`) are left out: c3sim has one GEMM per dtype."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c3sim", default="build/sim/cli/c3sim")
    ap.add_argument("--hardware", default="h100-sxm")
    a = ap.parse_args()
    with open(os.path.join(HERE, "h100_gemm_dtype.jsonl")) as f:
        recs = [json.loads(line) for line in f]
    gemms = [r for r in recs if r["kind"] == "iso_gemm" and "." not in r["tag"]]
    lines = ["scenarios:"]
    for i, r in enumerate(gemms):
        lines += [f"  - name: s{i}", "    gpus: 2",
                  f"    gemm: {{tag: {r['tag']}_{r['dtype']}, m: {r['m']}, n: {r['n']}, k: {r['k']}, dtype: {r['dtype']}}}",
                  "    collective: {op: all_gather, bytes: 16 MiB}", "    policies: [base]"]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        scenario = f.name
    try:
        out = subprocess.run([a.c3sim, "run", scenario, "--hardware", a.hardware, "--no-attribution"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(scenario)
    pred = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r["kind"] == "iso_gemm":
            pred[r["tag"]] = r["time_us"]
    errs = {}
    for r in gemms:
        e = pred[f"{r['tag']}_{r['dtype']}"] / r["time_us"] - 1
        errs.setdefault(r["dtype"], []).append(e)
        print(f"{r['tag']:18s} {r['dtype']:5s} measured {r['time_us']:9.1f} us  error {100 * e:+6.1f}%")
    every = [e for v in errs.values() for e in v]
    for name, v in list(errs.items()) + [("all", every)]:
        print(f"{name:5s} n={len(v):2d}  mean |error| {100 * statistics.mean(map(abs, v)):.1f}%  "
              f"signed {100 * statistics.mean(v):+.1f}%  worst {100 * max(v, key=abs):+.1f}%")


if __name__ == "__main__":
    main()

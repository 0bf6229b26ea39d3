"""c3sim's isolated-GEMM prediction for every iso_gemm record of a file, and the error per dtype
(how a hardware file's dtype efficiencies carry to shapes and dtypes measured on the GPU).
`c3sim validate` predicts c3 records only, so this runs each record's GEMM through `c3sim run`
(policy base, beside a 1 MiB all-gather that does not touch the GEMM's isolated time) and reads
iso_gemm_us. Usage, from the repository root:
    python3 hardware/measurements/dtype_h200/predict_iso.py FILE.jsonl --hardware h200-sxm [--c3sim PATH]
"""
import argparse
import json
import statistics
import subprocess
import tempfile
from collections import defaultdict


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("records")
    p.add_argument("--hardware", required=True)
    p.add_argument("--c3sim", default="build/sim/cli/c3sim")
    args = p.parse_args()
    gemms = [r for r in map(json.loads, open(args.records)) if r["kind"] == "iso_gemm"]
    lines = ["scenarios:"]
    for i, g in enumerate(gemms):
        lines += [f"  - name: r{i}", "    gpus: 8",
                  f"    gemm: {{m: {g['m']}, n: {g['n']}, k: {g['k']}, dtype: {g['dtype']}}}",
                  "    collective: {op: all_gather, bytes: 1 MiB}"]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        out = subprocess.run([args.c3sim, "run", f.name, "--hardware", args.hardware, "--policy", "base",
                              "--format", "jsonl"], check=True, capture_output=True, text=True).stdout
    predicted = {r["scenario"]: r["iso_gemm_us"] for r in map(json.loads, out.splitlines()) if r["kind"] == "c3"}
    errors = defaultdict(list)
    print(f"{'tag':28} {'dtype':5} {'measured_us':>11} {'predicted_us':>12} {'error':>7}")
    for i, g in enumerate(gemms):
        pred = predicted[f"r{i}"]
        err = pred / g["time_us"] - 1
        group = g["dtype"] + (" fast_accum" if g["tag"].endswith(".fast_accum") else "") + \
            (" tn" if g["tag"].endswith(".tn") else "")
        errors[group].append(err)
        print(f"{g['tag']:28} {g['dtype']:5} {g['time_us']:11.1f} {pred:12.1f} {100 * err:+6.1f}%")
    print("\nper dtype (positive: c3sim slower than measured)")
    for group, errs in errors.items():
        print(f"  {group:16} MAE {100 * statistics.mean(map(abs, errs)):5.1f}%  mean {100 * statistics.mean(errs):+6.1f}%"
              f"  worst {100 * max(errs, key=abs):+6.1f}%  ({len(errs)} shapes)")


if __name__ == "__main__":
    main()

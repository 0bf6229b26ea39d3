"""Per-kernel comparison of an imported step's prediction with its trace: each GEMM's and
collective's predicted duration (c3sim run, base: end - start) against the traced one.

    python3 hardware/measurements/torch_steps/per_kernel.py C3SIM STEP_DIR HARDWARE.yaml PROGRAM.yaml [--all-gpus]

PROGRAM.yaml is `c3sim import --from torch-profiler STEP_DIR/rank0.json` (or every rank's trace,
run with --all-gpus: collectives then wait for every rank); its kernel k<i> is rank 0's i-th
device-0 kernel, memcpy or memset in host launch order (the importer's numbering).
Prints n, mean |error| % and mean signed error % per kind, and the two worst kernels.
"""
import csv
import io
import json
import statistics
import subprocess
import sys


def main():
    c3sim, step_dir, hardware, program = sys.argv[1:5]
    flags = [a for a in sys.argv[5:] if a == "--all-gpus"]
    events = json.load(open(f"{step_dir}/rank0.json"))["traceEvents"]
    launch = {e["args"]["correlation"]: e["ts"] for e in events
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
           and e.get("args", {}).get("device", 0) == 0]
    gpu.sort(key=lambda e: (launch.get(e["args"].get("correlation"), e["ts"]), e["ts"]))
    out = subprocess.run([c3sim, "run", program, "--hardware", hardware, "--policy", "base", "--format", "csv"] + flags,
                         capture_output=True, text=True, check=True).stdout
    rows = csv.DictReader(io.StringIO(out.split("\n\n")[1]))
    errors = {"gemm": [], "collective": []}
    worst = []
    for r in rows:
        if r["kind"] not in errors:
            continue
        traced = gpu[int(r["kernel"][1:5])]["dur"]
        predicted = float(r["end us"]) - float(r["start us"])
        errors[r["kind"]].append((predicted - traced) / traced)
        worst.append((abs(predicted - traced) / traced, r["kernel"], round(traced), round(predicted)))
    for kind, e in errors.items():
        if e:
            print(f"{kind}: n {len(e)}, mean |error| {100 * statistics.mean(abs(x) for x in e):.1f}%, "
                  f"mean signed {100 * statistics.mean(e):+.1f}%")
    for err, name, traced, predicted in sorted(worst, reverse=True)[:2]:
        print(f"  worst: {name} traced {traced} us, predicted {predicted} us ({100 * err:.0f}%)")


if __name__ == "__main__":
    main()

"""Each isolated timing of a step's GEMMs and collectives against the same kernels in the step, with
no model in between: per step and timing (iso_conditioned.py's back_to_back, conditioned,
conditioned_busy, conditioned_kernels), the sum over the step's traced kernels of the isolated record
of each kernel's shape (m x n x k x dtype; collective op and bytes) against the sum of their traced
durations, and the per-kernel mean |error|.

    python3 hardware/measurements/torch_steps/harness_bias.py C3SIM [STEP ...]

(c3sim import of rank 0's trace names each kernel's shape and traced duration.)
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = ["ddp_b25", "ddp_b100", "fsdp_w4k", "fsdp_w8k", "fsdp_w4k_noreshard", "tp", "sp", "moe", "tp_fp16"]
TIMINGS = ["back_to_back", "conditioned", "conditioned_busy", "conditioned_kernels"]
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def imported_kernels(c3sim, step):
    """(kind, key, traced_us) of every GEMM and collective of rank 0's imported program."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.yaml")
        subprocess.run([c3sim, "import", "--from", "torch-profiler", os.path.join(HERE, step, "rank0.json"),
                        "--name", step, "-o", out], check=True, capture_output=True)
        text = open(out).read()
    rows = []
    for block in text.split("- name: ")[1:]:
        traced = re.search(r"traced_us: ([0-9.]+)", block)
        g = re.search(r"gemm: \{m: (\d+), n: (\d+), k: (\d+), dtype: (\w+)", block)
        c = re.search(r"collective: \{op: (\w+), bytes: ([0-9.]+) ?(\w+)", block)
        if traced and g:
            rows.append(("gemm", (int(g[1]), int(g[2]), int(g[3]), g[4]), float(traced[1])))
        elif traced and c:
            rows.append(("collective", (c[1], round(float(c[2]) * UNITS[c[3]])), float(traced[1])))
    return rows


def main():
    c3sim = sys.argv[1]
    steps = sys.argv[2:] or STEPS
    print("| step | kind (n) | traced sum (us) | " + " | ".join(TIMINGS) + " |")
    print("|---|---|---|" + "---|" * len(TIMINGS))
    for step in steps:
        recs = [json.loads(line) for line in open(os.path.join(HERE, step, "iso_conditioned.jsonl"))]
        table = {}
        for r in recs:
            t = r.get("extra", {}).get("timing")
            if r["kind"] == "iso_gemm":
                table[(t, "gemm", (r["m"], r["n"], r["k"], r["dtype"]))] = r["time_us"]
            elif r["kind"] == "iso_coll":
                table[(t, "collective", (r["op"], r["bytes"]))] = r["time_us"]
        kernels = imported_kernels(c3sim, step)
        for kind in ("gemm", "collective"):
            ks = [k for k in kernels if k[0] == kind]
            if not ks:
                continue
            traced = sum(k[2] for k in ks)
            cells = []
            for t in TIMINGS:
                got = [(table.get((t, kind, key)), dur) for _, key, dur in ks]
                got = [(iso, dur) for iso, dur in got if iso is not None]
                if len(got) < len(ks):
                    cells.append(f"{len(got)} of {len(ks)} matched")
                    continue
                iso_sum = sum(iso for iso, _ in got)
                mae = statistics.mean(abs(iso / dur - 1) for iso, dur in got)
                cells.append(f"{100 * (iso_sum / traced - 1):+.1f}% (MAE {100 * mae:.1f}%)")
            print(f"| `{step}` | {kind} ({len(ks)}) | {traced:.0f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

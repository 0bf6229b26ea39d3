"""How fast each rank's board ran the same kernels, from the traces alone: per kind, the median over
kernels of rank r's traced duration over rank 0's (kernels matched by their imported name), beside
the same ratio of c3sim's predictions. The isolated records the steps are calibrated on were taken
on GPU 0 only, so a board that runs the same GEMM faster or slower is outside the model; this
measures by how much.

    python3 hardware/measurements/torch_steps/rank_speed.py C3SIM HARDWARE.yaml PROGRAM.yaml

PROGRAM.yaml: every rank's trace of one step imported at once (`c3sim import --from
torch-profiler STEP/rank0.json STEP/rank1.json`). Kernels under 50 us traced are left out (launch
noise). Prints one line per rank after 0 and kind: n, median, min and max traced ratio, and the
median predicted ratio.
"""
import json
import statistics
import subprocess
import sys


def main():
    c3sim, hardware, program = sys.argv[1:4]
    out = subprocess.run([c3sim, "validate", program, "--hardware", hardware, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    by_name = {}
    for k in json.loads(out)[0]["kernels"]:
        by_name.setdefault(k["kernel"], {})[k.get("rank", 0)] = k
    ranks = sorted({r for d in by_name.values() for r in d})
    for r in ranks[1:]:
        for kind in ("gemm", "collective", "measured"):
            traced, predicted = [], []
            for d in by_name.values():
                if 0 in d and r in d and d[0]["kind"] == kind and d[0]["traced_us"] > 50:
                    traced.append(d[r]["traced_us"] / d[0]["traced_us"])
                    predicted.append(d[r]["predicted_us"] / d[0]["predicted_us"])
            if traced:
                print(f"rank {r} / rank 0, {kind}: n {len(traced)}, traced median {statistics.median(traced):.3f} "
                      f"(min {min(traced):.3f}, max {max(traced):.3f}), predicted median "
                      f"{statistics.median(predicted):.3f}")


if __name__ == "__main__":
    main()

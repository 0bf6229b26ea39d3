"""Per-kernel comparison of an imported step's prediction with its trace, through c3sim's own
per-kernel validation (`c3sim validate PROGRAM --format json`, base): each GEMM's and collective's
predicted span (first workgroup to end) against the traced duration the importer wrote beside it
(`traced_us`).

    python3 hardware/measurements/torch_steps/per_kernel.py C3SIM HARDWARE.yaml PROGRAM.yaml

PROGRAM.yaml is `c3sim import --from torch-profiler STEP_DIR/rank0.json` (rank 0 alone) or every
rank's trace at once, which runs every rank (collectives wait for the last rank): each rank's
kernels are then compared with that rank's own trace.
Prints n, mean |error| % and mean signed error % per kind, and the two worst kernels.
"""
import json
import subprocess
import sys


def main():
    c3sim, hardware, program = sys.argv[1:4]
    out = subprocess.run([c3sim, "validate", program, "--hardware", hardware, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    report = json.loads(out)[0]
    kinds = {k["kind"]: k for k in report["kinds"]}
    for kind in ("gemm", "collective"):
        if kind in kinds:
            k = kinds[kind]
            print(f"{kind}: n {k['kernels']}, mean |error| {k['mean_abs_pct_error']:.1f}%, "
                  f"mean signed {k['mean_pct_error']:+.1f}%")
    worst = [w for w in report["worst"] if w["kind"] in ("gemm", "collective")]
    for w in worst[:2]:
        print(f"  worst: rank {w.get('rank', 0)} {w['kernel']} traced {round(w['traced_us'])} us, "
              f"predicted {round(w['predicted_us'])} us ({abs(w['pct_error']):.0f}%)")


if __name__ == "__main__":
    main()

"""Each GEMM of a step: traced rate, how much GEMM work ran on the GPU just before it, and the
slowdown of the step's GEMM against its conditioned (rested) isolated record, to test whether the
step's GEMMs slow with the board's recent load (a power limit averaged over a window) or at once.

    python3 hardware/measurements/torch_steps/power_per_gemm.py C3SIM STEP_DIR CALIBRATED.yaml PROGRAM.yaml [WINDOW_MS]

PROGRAM.yaml is rank 0's import (`c3sim import --from torch-profiler STEP_DIR/rank0.json`), whose
GEMM kernels carry `traced_us` and `traced_start_us`; CALIBRATED.yaml the step's calibration on its
conditioned records (predict_power.sh's `none`), whose prediction of an isolated GEMM is its record.
Prints per GEMM: shape, traced us and TFLOP/s, the share of the WINDOW_MS (default 20) before its
start that GEMMs of the step occupied (duty), and traced / isolated; then the count-weighted
traced / isolated per duty band.
"""
import csv
import io
import subprocess
import sys

import yaml


def main():
    c3sim, step_dir, hardware, program = sys.argv[1:5]
    window = float(sys.argv[5]) * 1e3 if len(sys.argv) > 5 else 20e3
    kernels = yaml.safe_load(open(program))["programs"][0]["kernels"]
    gemms = [k for k in kernels if "gemm" in k and "traced_us" in k]
    out = subprocess.run([c3sim, "run", program, "--hardware", hardware, "--policy", "base", "--format", "csv"],
                         capture_output=True, text=True, check=True).stdout
    iso = {r["kernel"]: float(r["iso us"]) for r in csv.DictReader(io.StringIO(out.split("\n\n")[1]))}
    spans = [(k["traced_start_us"], k["traced_start_us"] + k["traced_us"]) for k in gemms]
    bands = {}
    for k in gemms:
        g = k["gemm"]
        flops = 2.0 * g["m"] * g["n"] * g["k"] * g.get("batch", 1)
        t0 = k["traced_start_us"]
        busy = sum(max(0.0, min(e, t0) - max(s, t0 - window)) for s, e in spans)
        duty = busy / window
        ratio = k["traced_us"] / iso[k["name"]] if k["name"] in iso else float("nan")
        print(f"{g['m']}x{g['n']}x{g['k']} {k['traced_us']:8.1f} us {flops / k['traced_us'] / 1e6:6.0f} TFLOP/s "
              f"duty {duty:4.2f} traced/iso {ratio:5.3f}")
        band = min(int(duty * 4), 3)
        w, s = bands.get(band, (0.0, 0.0))
        bands[band] = (w + k["traced_us"], s + iso.get(k["name"], float("nan")))
    for band in sorted(bands):
        w, s = bands[band]
        print(f"duty {band / 4:.2f}-{(band + 1) / 4:.2f}: traced/iso {w / s:.3f} ({w / 1e3:.1f} ms traced)")


if __name__ == "__main__":
    main()

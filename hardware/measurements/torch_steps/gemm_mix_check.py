"""c3sim against gemm_mix.py's loops: each loop written as a steady-state program (GEMMs as GEMMs,
HBM streams and idle gaps as measured kernels of their full-clock time, an HBM stream on every SM
and a gap on one), run on the h200-sxm preset with nothing fitted, each kernel's time in the
iteration over its full-clock time, against the same ratio measured.

    python3 hardware/measurements/torch_steps/gemm_mix_check.py C3SIM [gemm_power/gemm_mix.jsonl]

The ratio is the part of the prediction the power law makes: a GEMM's own full-clock time is the
preset's, not the record's. Prints one line per kernel and the mean |error| of the GEMMs' ratios.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def program(name, kernels):
    lines = [f"program:\n  name: {name}\n  steady_state: true\n  streams: [{{name: s}}]\n  kernels:\n"]
    for i, k in enumerate(kernels):
        if k["kind"] == "gemm":
            body = f"gemm: {{m: {k['m']}, n: {k['n']}, k: {k['k']}, dtype: bf16}}"
        else:
            wgs = 132 if k["kind"] == "hbm" else 1
            body = f"measured: {{time_us: {k['first_us']:.3f}, workgroups: {wgs}}}"
        lines.append(f"    - {{name: k{i}, stream: s, {body}}}\n")
    return "".join(lines)


def main():
    c3sim = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "gemm_power", "gemm_mix.jsonl")
    errors = []
    for line in open(path):
        r = json.loads(line)
        if r["kind"] != "loop":
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(program(r["name"], r["kernels"]))
        out = subprocess.run([c3sim, "run", f.name, "--hardware", "h200-sxm", "--policy", "base", "--format", "csv"],
                             capture_output=True, text=True, check=True).stdout
        os.unlink(f.name)
        rows = list(csv.DictReader(io.StringIO(out.split("\n\n")[1])))
        for i, k in enumerate(r["kernels"]):
            row = next(x for x in rows if x["kernel"] == f"k{i}")
            predicted = (float(row["end us"]) - float(row["start us"])) / float(row["iso us"])
            measured = k["steady_us"] / k["first_us"]
            if k["kind"] == "gemm":
                errors.append(abs(predicted / measured - 1))
            print(f"{r['name']:12s} {k['spec']:24s} measured {measured:.3f}  c3sim {predicted:.3f}")
    print(f"GEMMs: mean |error| of the steady / full-clock ratio {100 * statistics.mean(errors):.1f}% "
          f"(n = {len(errors)})")


if __name__ == "__main__":
    main()

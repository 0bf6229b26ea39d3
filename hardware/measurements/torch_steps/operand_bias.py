"""Per GEMM shape of each captured step: the isolated time on random normal operands against the
time on the step's own operands (both in STEP/iso_torch.jsonl), and the traced GEMM time.

    python3 hardware/measurements/torch_steps/operand_bias.py [STEP_DIR ...]

Prints a markdown row per step: shapes with both records, the count-weighted sum of each, and
their difference; with --shapes, a row per shape.
"""
import glob
import json
import os
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    per_shape = "--shapes" in sys.argv
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = args or sorted(d for d in glob.glob(os.path.join(here, "*")) if os.path.exists(os.path.join(d, "iso_torch.jsonl")))
    print("| step | shapes | random operands (us, count-weighted) | step operands (us) | step vs random |")
    print("|---|---|---|---|---|")
    for d in dirs:
        recs = [json.loads(line) for line in open(os.path.join(d, "iso_torch.jsonl"))]
        by = {}
        for r in recs:
            if r.get("kind") == "iso_gemm":
                by.setdefault((r["m"], r["n"], r["k"], r["dtype"]), {})[r["extra"].get("operands", "random")] = r
        both = {k: v for k, v in by.items() if "random" in v and "step" in v}
        if not both:
            print(f"| {os.path.basename(d)} | 0 of {len(by)} | | | |")
            continue
        rnd = sum(v["random"]["time_us"] * v["random"]["extra"]["calls_in_step"] for v in both.values())
        stp = sum(v["step"]["time_us"] * v["random"]["extra"]["calls_in_step"] for v in both.values())
        print(f"| {os.path.basename(d)} | {len(both)} of {len(by)} | {rnd:.0f} | {stp:.0f} | {100 * (stp / rnd - 1):+.1f}% |")
        if per_shape:
            for (m, n, k, dt), v in sorted(both.items()):
                r, s = v["random"]["time_us"], v["step"]["time_us"]
                print(f"|  | {m}x{n}x{k} {dt} x{v['random']['extra']['calls_in_step']} | {r:.1f} | {s:.1f} | "
                      f"{100 * (s / r - 1):+.1f}% |")


if __name__ == "__main__":
    main()

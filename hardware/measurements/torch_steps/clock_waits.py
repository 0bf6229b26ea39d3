"""Does the rank that waits at a collective run the lower SM clock? Reads a two-rank step captured
with `capture_steps.py --clock-samples` (clock_samples/tp: clocks_rank<r>.json beside the traces).

    python3 hardware/measurements/torch_steps/clock_waits.py [STEP_DIR]

Both the clock samples and the step stamps are host time.time_ns(); a trace's GPU timestamps map to
the same clock as baseTimeNanoseconds + ts * 1000, so a traced kernel's time can be looked up in
the samples. NVML refreshes the SM clock and power it reports about every 100 ms (printed as the
median time between changed values), about one value per 80 ms step: each step gets one or two
distinct values per GPU, and a single GEMM or collective none of its own.

Prints, per timed step, each GPU's mean SM clock and power over the samples inside the step; for
the recorded step, per collective, the clock NVML last reported on each GPU and collective_wait.py's
wait per rank; then which GPU held the lower clock and which rank waited.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(step_dir, rank):
    return json.load(open(os.path.join(step_dir, f"clocks_rank{rank}.json")))


def inside(samples, lo, hi):
    return [s for s in samples if lo <= s[0] <= hi]


def last_before(samples, t):
    prior = [s for s in samples if s[0] <= t]
    return prior[-1] if prior else samples[0]


def nccl_host_ns(step_dir, rank):
    """The recorded step's NCCL kernels on rank r as [start, end] host ns."""
    trace = json.load(open(os.path.join(step_dir, f"rank{rank}.json")))
    base = int(trace["baseTimeNanoseconds"])
    kernels = sorted((e for e in trace["traceEvents"] if e.get("cat") == "kernel" and e["name"].startswith("nccl")),
                     key=lambda e: e["ts"])
    return [[base + int(e["ts"] * 1000), base + int((e["ts"] + e["dur"]) * 1000)] for e in kernels]


def waits(step_dir):
    """collective_wait.py's wait per (collective, rank), us."""
    out = subprocess.run([sys.executable, os.path.join(HERE, "collective_wait.py"), step_dir], capture_output=True,
                         text=True, check=True).stdout
    return {(int(r["i"]), int(r["rank"])): float(r["wait_us"]) for r in csv.DictReader(io.StringIO(out))}


def main():
    step_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "clock_samples", "tp")
    ranks = [load(step_dir, r) for r in (0, 1)]
    for r, d in enumerate(ranks):
        print(f"rank {r}: NVML GPU {d['nvml_index']} ({d['matched_by']}), {len(d['samples'])} samples, "
              f"{d['value_changes']} changed values, median {d['median_ns_between_changes'] / 1e6:.0f} ms between changes")
    print("\ntimed step,event us rank0,event us rank1,SM MHz gpu0,SM MHz gpu1,W gpu0,W gpu1,lower clock")
    lower = {0: 0, 1: 0, None: 0}
    diffs = []
    for i in range(len(ranks[0]["timed_steps_host_ns"])):
        row = [i, round(ranks[0]["timed_steps_event_us"][i]), round(ranks[1]["timed_steps_event_us"][i])]
        mhz, watts = [], []
        for d in ranks:
            w = inside(d["samples"], *d["timed_steps_host_ns"][i])
            mhz.append(statistics.mean(s[1] for s in w))
            watts.append(statistics.mean(s[2] for s in w) / 1000)
        low = None if mhz[0] == mhz[1] else (0 if mhz[0] < mhz[1] else 1)
        lower[low] += 1
        diffs.append(mhz[1] / mhz[0] - 1)
        print(",".join(str(x) for x in row + [round(m) for m in mhz] + [round(w) for w in watts] + [low]))
    print(f"timed steps: GPU 0 lower in {lower[0]}, GPU 1 lower in {lower[1]}, equal in {lower[None]}; "
          f"GPU 1 over GPU 0 median {100 * statistics.median(diffs):+.1f}%, "
          f"range {100 * min(diffs):+.1f} .. {100 * max(diffs):+.1f}%")

    w = waits(step_dir)
    colls = [nccl_host_ns(step_dir, r) for r in (0, 1)]
    rec = [inside(d["samples"], *d["recorded_step_host_ns"]) for d in ranks]
    rec_mhz = [statistics.mean(s[1] for s in x) for x in rec]
    print(f"\nrecorded step: mean SM clock GPU 0 {rec_mhz[0]:.0f} MHz, GPU 1 {rec_mhz[1]:.0f} MHz")
    print("collective,SM MHz gpu0 at start,SM MHz gpu1 at start,wait us rank0,wait us rank1")
    summed = [0.0, 0.0]
    for i in range(min(len(colls[0]), len(colls[1]))):
        at = [last_before(ranks[r]["samples"], colls[r][i][0])[1] for r in (0, 1)]
        wi = [w.get((i, r), 0.0) for r in (0, 1)]
        if i > 0:  # the first collective waits for the ranks' start skew, not for their GEMMs
            summed = [summed[r] + wi[r] for r in (0, 1)]
        print(f"{i},{at[0]},{at[1]},{wi[0]:.0f},{wi[1]:.0f}")
    print(f"waits after the first collective: rank 0 {summed[0]:.0f} us, rank 1 {summed[1]:.0f} us")


if __name__ == "__main__":
    main()

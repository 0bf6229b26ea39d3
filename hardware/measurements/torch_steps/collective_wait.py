"""Split each traced collective of a two-rank step into waiting for the peer and the rest, and
say what ran beside it.

    python3 hardware/measurements/torch_steps/collective_wait.py STEP_DIR [STEP_DIR ...] [--c3sim C3SIM --timing conditioned]

A traced NCCL kernel starts when its stream reaches it and spins until the peer's kernel has
started too; its data moves only after that. The two ranks' traces come from two processes whose
GPU timestamps are mapped to the host clock separately, so they carry a constant offset of tens
of microseconds. A 2-GPU ring collective ends on both GPUs within a few microseconds (the last
chunk each rank receives is the other's last send), so the offset is the median over the step's
collectives of (end on rank 1 - end on rank 0); its spread is printed as `end_spread_us`.

Per collective i (in stream order; the i-th NCCL kernel of each rank is the same call):
  arrive = max(start0, start1 - offset)        the later rank's start, on rank 0's clock
  wait_r = arrive - start_r                    rank r spinning for its peer
  rest_r = end_r - arrive                      the transfer once both are present
and beside it, on rank r's other streams during [arrive, end_r]: the microseconds covered by GEMM
kernels and by any other kernels (union of intervals) and how many distinct GEMM kernels;
`peer_gemm_excess_us`: the GEMM time the peer ran between the previous collective's end and this
one's start, less this rank's (where both ranks do the same work in between, the wait).

`alone_us` is the step's own conditioned isolated record of that call (`iso_conditioned.jsonl`,
timing `conditioned_kernels`: the NCCL kernel's own span behind two alignment all-reduces), matched
by the bytes NCCL logged for it (`nccl_step.json`, same enqueue order).

With --c3sim, each step is imported (both ranks), calibrated on the step's conditioned records
(select_records.py, timing --timing) and validated with every rank simulated (`c3sim validate
--format json`); the predicted start, the predicted wait (later rank's predicted start - this
rank's) and the predicted rest are printed beside the traced ones.
Output: one CSV row per collective and rank; on stderr per step the clock offset, the summed
wait and rest, and how the same GEMMs' durations differ between the two GPUs.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def is_gemm(name):
    n = name.lower()
    return any(t in n for t in ("gemm", "cutlass", "xmma", "nvjet", "cublas", "sm90_", "sm80_"))


def is_nccl(name):
    return name.startswith("ncclDevKernel") or name.startswith("ncclKernel")


def load_rank(path):
    events = json.load(open(path))["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    kernels.sort(key=lambda e: e["ts"])
    nccl = [e for e in kernels if is_nccl(e["name"])]
    return kernels, nccl


def covered(intervals, lo, hi):
    """Microseconds of [lo, hi] covered by the union of the intervals."""
    clipped = sorted((max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi)
    total, cur_a, cur_b = 0.0, None, None
    for a, b in clipped:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def alone_records(step_dir):
    """NCCL's logged bytes -> (op, conditioned_kernels us, conditioned us)."""
    by_bytes, kernels_time = {}, {}
    path = f"{step_dir}/iso_conditioned.jsonl"
    if not os.path.exists(path):
        return {}
    recs = [json.loads(line) for line in open(path)]
    for r in recs:
        if r.get("kind") != "iso_coll":
            continue
        t = r["extra"].get("timing")
        if t == "conditioned_kernels":
            kernels_time[(r["op"], r["bytes"])] = r["time_us"]
    for r in recs:
        if r.get("kind") == "iso_coll" and r["extra"].get("timing") == "conditioned":
            nccl_bytes = (r["extra"].get("nccl") or {}).get("bytes", r["bytes"])
            by_bytes[(r["op"], nccl_bytes)] = (r["bytes"], kernels_time.get((r["op"], r["bytes"])), r["time_us"])
    return by_bytes


OPS = {"AllReduce": "all_reduce", "AllGather": "all_gather", "ReduceScatter": "reduce_scatter"}


def predicted_rows(c3sim, step_dir, timing, tmp):
    """Every rank's collectives as c3sim validate predicts them, in rank and stream order."""
    s = os.path.basename(os.path.normpath(step_dir))
    iso, hw, prog = f"{tmp}/{s}.iso.jsonl", f"{tmp}/{s}.hw.yaml", f"{tmp}/{s}.yaml"
    subprocess.run(["python3", f"{HERE}/select_records.py", f"{step_dir}/iso_conditioned.jsonl", iso, "random", timing],
                   check=True, capture_output=True)
    subprocess.run([c3sim, "calibrate", iso, "--hardware", "h200-sxm", "-o", hw], check=True, capture_output=True)
    subprocess.run([c3sim, "import", "--from", "torch-profiler", f"{step_dir}/rank0.json", f"{step_dir}/rank1.json",
                    "--name", s, "-o", prog], check=True, capture_output=True)
    out = subprocess.run([c3sim, "validate", prog, "--hardware", hw, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    rows = json.loads(out)[0]["kernels"]  # one report per program
    per_rank = {}
    for r in rows:
        if r.get("kind") != "collective":
            continue
        per_rank.setdefault(int(r.get("rank", 0)), []).append(r)
    for r in per_rank.values():
        r.sort(key=lambda x: x["traced_start_us"])
    return per_rank


def main():
    args = sys.argv[1:]
    c3sim = timing = None
    if "--c3sim" in args:
        i = args.index("--c3sim")
        c3sim = args[i + 1]
        del args[i:i + 2]
    timing = "conditioned"
    if "--timing" in args:
        i = args.index("--timing")
        timing = args[i + 1]
        del args[i:i + 2]
    w = csv.writer(sys.stdout)
    head = ["step", "i", "op", "bytes", "rank", "traced_us", "wait_us", "rest_us", "alone_us", "rest_over_alone",
            "gemm_beside_us", "other_beside_us", "gemms_beside", "peer_gemm_excess_us"]
    if c3sim:
        head += ["pred_us", "pred_wait_us", "pred_rest_us"]
    w.writerow(head)
    tmp = tempfile.mkdtemp()
    for step_dir in args:
        s = os.path.basename(os.path.normpath(step_dir))
        ranks = [load_rank(f"{step_dir}/rank{r}.json") for r in (0, 1)]
        n0, n1 = ranks[0][1], ranks[1][1]
        if len(n0) != len(n1) or not n0:
            print(f"{s}: {len(n0)} vs {len(n1)} NCCL kernels, skipped", file=sys.stderr)
            continue
        end_diff = [(b["ts"] + b["dur"]) - (a["ts"] + a["dur"]) for a, b in zip(n0, n1)]
        offset = statistics.median(end_diff)
        spread = max(abs(d - offset) for d in end_diff)
        logged = json.load(open(f"{step_dir}/nccl_step.json"))["collectives"] if os.path.exists(
            f"{step_dir}/nccl_step.json") else []
        alone = alone_records(step_dir)
        pred = predicted_rows(c3sim, step_dir, timing, tmp) if c3sim else None
        poffset = 0.0
        if pred and len(pred.get(0, [])) == len(pred.get(1, [])) > 0:
            poffset = statistics.median(
                (b["predicted_start_us"] + b["predicted_us"]) - (a["predicted_start_us"] + a["predicted_us"])
                for a, b in zip(pred[0], pred[1]))
        # GEMM time each rank ran between the previous collective's end and this one's start: with
        # the ranks lined up by the previous collective, the peer's excess is what this rank waits
        # for when the work between is the same on both
        gemm_since = [[covered([(e["ts"], e["ts"] + e["dur"]) for e in ranks[r][0] if is_gemm(e["name"])],
                               nk[i - 1]["ts"] + nk[i - 1]["dur"], nk[i]["ts"]) if i else None
                       for i in range(len(nk))] for r, nk in enumerate((n0, n1))]
        g0 = [e["dur"] for e in ranks[0][0] if is_gemm(e["name"])]
        g1 = [e["dur"] for e in ranks[1][0] if is_gemm(e["name"])]
        same_gemms = [b / a - 1 for a, b in zip(g0, g1) if a > 100] if len(g0) == len(g1) else []
        sums = {"traced": 0.0, "wait": 0.0, "rest": 0.0, "alone": 0.0, "n": 0}
        for i, (a, b) in enumerate(zip(n0, n1)):
            starts = (a["ts"], b["ts"] - offset)
            ends = (a["ts"] + a["dur"], b["ts"] + b["dur"] - offset)
            arrive = max(starts)
            op, nbytes = "", ""
            if len(logged) == len(n0):
                op = OPS.get(logged[i]["func"], logged[i]["func"])
                nbytes = logged[i]["bytes"]
            rec = alone.get((op, nbytes))
            alone_us = rec[1] if rec else None
            for r, k in enumerate((a, b)):
                kernels = ranks[r][0]
                stream = k["args"].get("stream")
                off = offset if r == 1 else 0.0
                lo, hi = arrive + off, ends[r] + off
                beside = [e for e in kernels if e["args"].get("stream") != stream and not is_nccl(e["name"])
                          and e["ts"] < hi and e["ts"] + e["dur"] > lo]
                gemm_iv = [(e["ts"], e["ts"] + e["dur"]) for e in beside if is_gemm(e["name"])]
                other_iv = [(e["ts"], e["ts"] + e["dur"]) for e in beside if not is_gemm(e["name"])]
                names = sorted({e["name"][:40] for e in beside if is_gemm(e["name"])})
                wait = arrive - starts[r]
                rest = ends[r] - arrive
                row = [s, i, op, nbytes, r, round(k["dur"], 1), round(wait, 1), round(rest, 1),
                       round(alone_us, 1) if alone_us else "", round(rest / alone_us, 2) if alone_us else "",
                       round(covered(gemm_iv, lo, hi), 1), round(covered(other_iv, lo, hi), 1), len(names),
                       round(gemm_since[1 - r][i] - gemm_since[r][i], 1) if i else ""]
                if pred is not None and i < len(pred.get(0, [])) and i < len(pred.get(1, [])):
                    # predicted starts count from each rank's own first kernel: line the ranks up on
                    # their collectives' ends, which the model makes equal (data moves once all arrive)
                    pstart = [pred[q][i]["predicted_start_us"] - (poffset if q == 1 else 0.0) for q in (0, 1)]
                    pend = pstart[r] + pred[r][i]["predicted_us"]
                    parrive = max(pstart)
                    row += [round(pend - pstart[r], 1), round(parrive - pstart[r], 1), round(pend - parrive, 1)]
                w.writerow(row)
                sums["traced"] += k["dur"]
                sums["wait"] += wait
                sums["rest"] += rest
                if alone_us:
                    sums["alone"] += alone_us
                    sums["n"] += 1
        print(f"{s}: offset {offset:.1f} us, end_spread_us {spread:.1f}; both ranks summed: traced {sums['traced']:.0f}"
              f" = wait {sums['wait']:.0f} + rest {sums['rest']:.0f}; alone {sums['alone']:.0f}"
              f" ({sums['n']} matched)", file=sys.stderr)
        if same_gemms:
            print(f"{s}: the same GEMMs (> 100 us) on rank 1 against rank 0: median {100 * statistics.median(same_gemms):+.1f}%,"
                  f" mean |difference| {100 * statistics.mean(abs(x) for x in same_gemms):.1f}%,"
                  f" {100 * min(same_gemms):+.1f}% .. {100 * max(same_gemms):+.1f}%", file=sys.stderr)


if __name__ == "__main__":
    main()

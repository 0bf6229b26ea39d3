#!/usr/bin/env python3
"""Turns the DMA-architecture sweep's CSV into docs/dma-architecture.md's Markdown tables.

    c3sim sweep examples/dma_architecture.yaml -o dma_architecture.jsonl
    c3sim sweep examples/dma_architecture_cu.yaml -o dma_architecture_cu.jsonl
    python3 examples/dma_architecture_tables.py dma_architecture.jsonl dma_architecture_cu.jsonl > tables.md
    (CSV output, -o *.csv, reads the same)

Tables (docs/dma-architecture.md):
  1. each enhancement alone and combined: dma C3 time of the preset over the variant's (geometric
     mean over the 30 Table II scenarios; > 1 = faster), per size;
  2. the 1 MiB penalty as submission moves from host to GPU: the dma collective's time under C3
     over isolated RCCL, mean over the 15 scenarios of each collective;
  3. memory-side options: dma C3 time of the preset over the variant's, and the GEMM's time under
     dma over the preset's isolated GEMM;
  4. all-reduce: hybrid_ar and reduction-capable engines (dma at 8-64 GB/s of reduction per
     engine) against all-reduce on CUs under base and sp, geometric mean over the seven GEMMs;
  5. break-even: per scenario and size, the largest launch latency L (launch_* variants) at
     which dma still beats the best CU policy (best of base, sp, rp_best); "<1" = never;
  3b. what the memory-side options recover of the interference DMA offload leaves: the share of
     the preset dma GEMM's slowdown over isolated (GEMM under dma / isolated GEMM - 1) that the
     variant removes, and the variant's dma C3 time over the CU policies' (base on the preset, sp
     in the variant: a partition also takes the GEMM's channels under sp);
  4b. table 4 against all-reduce on CUs under base;
  7. engine placement: dma C3 time and dma collective time under C3, preset / variant (geomean of
     30), for round robin, all on one, engines partitioned between collectives and engines over
     4 IODs.
Standard library only.
"""
import csv
import json
import math
import sys
from collections import defaultdict

SIZES = ["1 MiB", "4 MiB", "16 MiB", "64 MiB", "256 MiB", "1 GiB", "4 GiB", "16 GiB"]
LAUNCH = [("launch_1us", 1), ("launch_2us", 2), ("launch_5us", 5), ("launch_10us", 10),
          ("launch_20us", 20), ("launch_50us", 50), ("launch_100us", 100), ("launch_200us", 200),
          ("launch_1000us", 1000), ("launch_5000us", 5000)]
ALONE = ["batched", "prelaunched", "gpu_submit", "gpu_poll", "gpu_submit_poll", "gpu_prelaunched_poll",
         "partition_1_8", "partition_1_4", "priority_4", "llc_bypass", "l2_flush", "all_on_one", "combined"]
SUBMISSION = ["host_preset", "batched", "prelaunched", "gpu_submit", "gpu_poll", "gpu_submit_poll",
              "gpu_prelaunched_poll", "combined"]
MEMORY = ["host_preset", "partition_1_8", "partition_1_4", "priority_4", "llc_bypass", "l2_flush", "combined"]
REDUCE = ["reduce_8", "reduce_16", "reduce_32", "reduce_64"]
PLACEMENT = ["round_robin", "all_on_one", "partition_engines", "iods_4", "iods_4_round_robin", "iods_4_all_on_one"]
MEMORY_SIZES = ["64 MiB", "256 MiB", "1 GiB", "4 GiB", "16 GiB"]


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def size_label(s):
    return s.replace(" MiB", "M").replace(" GiB", "G")


def load(path):
    # runs[(variant, size, scenario, policy)] = row; the sweep's CSV or its JSONL (-o *.jsonl, the
    # report's input), whose records carry the same values under their measurement-schema names.
    runs = {}
    if path.endswith(".jsonl"):
        for line in open(path):
            r = json.loads(line)
            if r.get("kind") != "c3":
                continue
            v = r["extra"]["variant"]
            row = {"time_us": r["time_us"], "gemm_us": r["gemm_time_us"], "coll_us": r["coll_time_us"],
                   "iso_gemm_us": r["iso_gemm_us"], "iso_coll_us": r["iso_coll_us"]}
            runs[(v["name"], v["settings"]["workload.collective.bytes"], r["scenario"], r["policy"])] = row
        return runs
    for r in csv.DictReader(open(path, newline="")):
        runs[(r["name"], r["workload.collective.bytes"], r["scenario"], r["policy"])] = r
    return runs


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def main(paths):
    runs = {}
    for path in paths:
        runs.update(load(path))
    scen = sorted({k[2] for k in runs})
    paper = [s for s in scen if s.endswith("_ag") or s.endswith("_a2a")]
    ar = [s for s in scen if s.endswith("_ar")]
    t = lambda v, z, s, p: float(runs[(v, z, s, p)]["time_us"])

    print("### 1. Each enhancement alone and combined (dma, C3 time: preset / variant, geomean of 30)\n")
    rows = []
    for v in ALONE:
        rows.append([v] + [f"{geomean(t('host_preset', z, s, 'dma') / t(v, z, s, 'dma') for s in paper):.3f}"
                           for z in SIZES])
    print(table(["variant"] + [size_label(z) for z in SIZES], rows))

    print("\n### 2. 1 MiB: dma collective time under C3 / isolated RCCL (mean of 15 per collective)\n")
    rows = []
    for v in SUBMISSION:
        cells = [v]
        for suffix in ("_ag", "_a2a"):
            group = [s for s in paper if s.endswith(suffix)]
            ratio = [float(runs[(v, "1 MiB", s, "dma")]["coll_us"]) / float(runs[(v, "1 MiB", s, "dma")]["iso_coll_us"])
                     for s in group]
            cells.append(f"{mean(ratio):.2f}")
        cells.append(f"{mean(float(runs[(v, '1 MiB', s, 'dma')]['coll_us']) for s in paper):.1f}")
        rows.append(cells)
    print(table(["submission", "AG dma/RCCL", "A2A dma/RCCL", "dma coll us"], rows))

    print("\n### 3. Memory side: dma C3 time, preset / variant (geomean of 30) | GEMM under dma / isolated "
          "GEMM on the preset (mean)\n")
    rows = []
    for v in MEMORY:
        cells = [v]
        for z in ["64 MiB", "256 MiB", "1 GiB", "4 GiB", "16 GiB"]:
            gain = geomean(t("host_preset", z, s, "dma") / t(v, z, s, "dma") for s in paper)
            slow = mean(float(runs[(v, z, s, "dma")]["gemm_us"]) / float(runs[("host_preset", z, s, "dma")]["iso_gemm_us"])
                        for s in paper)
            cells.append(f"{gain:.3f} / {slow:.3f}")
        rows.append(cells)
    print(table(["variant", "64M", "256M", "1G", "4G", "16G"], rows))

    print("\n### 3b. Interference recovered: share of the preset dma GEMM's slowdown removed | dma C3 time / "
          "base | dma / sp (geomean of 30; < 1 = dma faster)\n")
    rows = []
    gemm_slow = lambda v, z, s: float(runs[(v, z, s, "dma")]["gemm_us"]) / float(runs[("host_preset", z, s, "dma")]["iso_gemm_us"])
    for v in MEMORY:
        cells = [v]
        for z in MEMORY_SIZES:
            # Recovered = (preset slowdown - variant slowdown) / (preset slowdown - 1), of the means;
            # negative when the variant slows the GEMM more than the preset's dma does.
            pre = mean(gemm_slow("host_preset", z, s) for s in paper)
            var = mean(gemm_slow(v, z, s) for s in paper)
            rec = (pre - var) / (pre - 1) if pre > 1 else float("nan")
            vs_base = geomean(t(v, z, s, "dma") / t("host_preset", z, s, "base") for s in paper)
            vs_sp = geomean(t(v, z, s, "dma") / t(v, z, s, "sp") for s in paper)
            cells.append(f"{100 * rec:+.0f}% / {vs_base:.3f} / {vs_sp:.3f}")
        rows.append(cells)
    print(table(["variant"] + [size_label(z) for z in MEMORY_SIZES], rows))

    # Tables 4 and 4b: the same columns against all-reduce on CUs under one CU policy (`ref`), the
    # other CU policy among the columns.
    def all_reduce_table(ref, other, heading):
        print(f"\n### {heading}: C3 time over CU all-reduce under {ref} (geomean of 7 GEMMs; < 1 = faster)\n")
        rows = []
        for z in SIZES:
            r = {s: t("host_preset", z, s, ref) for s in ar}
            cells = [size_label(z), f"{mean(r.values()):.0f}",
                     f"{geomean(t('host_preset', z, s, other) / r[s] for s in ar):.3f}",
                     f"{geomean(t('host_preset', z, s, 'hybrid_ar') / r[s] for s in ar):.3f}"]
            cells += [f"{geomean(t(v, z, s, 'dma') / r[s] for s in ar):.3f}" for v in REDUCE]
            cells.append(f"{geomean(t('combined', z, s, 'dma') / r[s] for s in ar):.3f}")
            rows.append(cells)
        print(table(["size", f"{ref} us (mean)", other, "hybrid_ar", "dma 8 GB/s", "dma 16 GB/s", "dma 32 GB/s",
                     "dma 64 GB/s", "combined"], rows))

    all_reduce_table("sp", "base", "4. All-reduce")
    all_reduce_table("base", "sp", "4b. All-reduce")

    print("\n### 5. Break-even launch latency: largest L (us) at which dma beats the best CU policy\n")
    rows = []
    for s in paper:
        cells = [s]
        for z in SIZES:
            # The launch variants change only copy-engine fields: the CU side is the preset's.
            best_cu = min(t("host_preset", z, s, p) for p in ("base", "sp", "rp_best"))
            ok = [L for v, L in LAUNCH if t(v, z, s, "dma") < best_cu]
            # Faster launches never lose where a slower one wins, so the largest winner is the edge.
            cells.append(f">={LAUNCH[-1][1]}" if ok and max(ok) == LAUNCH[-1][1] else (str(max(ok)) if ok else "<1"))
        rows.append(cells)
    print(table(["scenario"] + [size_label(z) for z in SIZES], rows))

    print("\n### 7. Engine placement: dma C3 time | dma collective time under C3, preset / variant (geomean of 30; "
          "< 1 = slower)\n")
    rows = []
    coll = lambda v, z, s: float(runs[(v, z, s, "dma")]["coll_us"])
    for v in PLACEMENT:
        cells = [v]
        for z in SIZES:
            c3 = geomean(t("host_preset", z, s, "dma") / t(v, z, s, "dma") for s in paper)
            cl = geomean(coll("host_preset", z, s) / coll(v, z, s) for s in paper)
            cells.append(f"{c3:.3f} / {cl:.3f}")
        rows.append(cells)
    print(table(["variant"] + [size_label(z) for z in SIZES], rows))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

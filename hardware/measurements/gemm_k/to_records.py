"""h200_gemm_k_sweep.jsonl (gemm_k_sweep.py) -> c3sim iso_gemm records, one per shape: the median
of the 12 rest_20ms products (the back-to-back ones of short GEMMs are bound by the host's launch
rate, not the GPU). Usage: python3 to_records.py h200_gemm_k_sweep.jsonl > h200_gemm_k_iso.jsonl"""
import json
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("mode") == "rest_20ms":
        runs[(r["m"], r["n"], r["k"])].append(r["time_us"])
for (m, n, k), times in runs.items():
    print(json.dumps({"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm", "tag": f"g{m}x{n}x{k}",
                      "m": m, "n": n, "k": k, "dtype": "bf16", "cus": 132, "time_us": statistics.median(times),
                      "spread_us": max(times) - min(times), "trials": len(times)}))

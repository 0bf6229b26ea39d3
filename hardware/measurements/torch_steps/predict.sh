#!/bin/bash
# Import every captured step's rank-0 trace and predict it, calibrated on the step's own isolated
# records (docs/programs.md, "Import a PyTorch profiler trace"), from the repository root:
#   bash hardware/measurements/torch_steps/predict.sh [path/to/c3sim] [POLICIES]
# Prints one CSV line per step and policy: kernels in the trace, cuda_sync events by kind, the
# importer's summary, c3sim's step, the trace's own step and the unprofiled median (CUDA events).
set -eu
c3sim=${1:-build/sim/cli/c3sim}
policies=${2:-base,sp,dma}
here=hardware/measurements/torch_steps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "step,policy,trace_kernels,cuda_sync,imported,predicted_us,trace_step_us,unprofiled_median_us,vs_unprofiled_pct"
for dir in "$here"/*/; do
  s=$(basename "$dir")
  [ -f "$dir/rank0.json" ] || continue
  "$c3sim" calibrate "$dir/iso_torch.jsonl" --hardware h200-sxm -o "$tmp/$s.hw.yaml" 2>/dev/null
  imported=$("$c3sim" import --from torch-profiler "$dir/rank0.json" --name "$s" -o "$tmp/$s.yaml" 2>&1 |
    sed -e 's/.*rank0.json: //' -e 's/,/;/g')
  "$c3sim" run "$tmp/$s.yaml" --hardware "$tmp/$s.hw.yaml" --policy "$policies" --format csv 2>/dev/null |
    sed -n "2,/^$/p" | grep -v "^$" | python3 -c '
import csv, json, sys
d, s, imported = sys.argv[1], sys.argv[2], sys.argv[3]
summ = json.load(open(d + "/summary.json"))["per_rank"][0]["trace"]
med = json.load(open(d + "/timing.json"))["unprofiled_step_us_median"][0]
sync = " ".join(f"{k.replace(chr(32), chr(95))}={v}" for k, v in sorted(summ["cuda_sync"].items()))
for row in csv.reader(sys.stdin):
    pred, kernels = float(row[2]), summ["kernels"]
    print(f"{s},{row[1]},{kernels},{sync},{imported},{pred:.1f},{row[6]},{med:.1f},{100 * (pred / med - 1):+.1f}")
' "$dir" "$s" "$imported"
done

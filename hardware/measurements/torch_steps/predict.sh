#!/bin/bash
# Import every captured step and predict it, calibrated on the step's own isolated records
# (docs/programs.md, "Import a PyTorch profiler trace"), from the repository root:
#   bash hardware/measurements/torch_steps/predict.sh [path/to/c3sim] [POLICIES] [step|random] [TIMING]
# The third argument picks the isolated GEMM records to calibrate on (select_records.py): measured
# on the step's own operands (default) or on random normal ones. A fourth, TIMING, calibrates on
# STEP/iso_conditioned.jsonl's records of that timing instead (conditioned, conditioned_kernels,
# conditioned_busy, back_to_back: iso_conditioned.py; random operands). Each step is predicted twice:
# rank 0's trace alone, and every rank's trace as one program run with --all-gpus (collectives
# wait for every rank). Prints one CSV line per step, mode and policy: kernels in rank 0's trace,
# cuda_sync events by kind, the importer's summary, c3sim's step, the trace's own step, the
# unprofiled median (CUDA events; for all ranks the slowest rank's) and the error against it.
# NO_POWER=1 (environment) calibrates on the preset with its board power limit off
# (`model.power.limit: 0 W`): the records' rested clock throughout.
set -eu
c3sim=${1:-build/sim/cli/c3sim}
policies=${2:-base,sp,dma}
operands=${3:-step}
timing=${4:-}
here=hardware/measurements/torch_steps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "step,operands,mode,policy,trace_kernels,cuda_sync,imported,predicted_us,trace_step_us,unprofiled_median_us,vs_unprofiled_pct"
for dir in "$here"/*/; do
  s=$(basename "$dir")
  [ -f "$dir/rank0.json" ] || continue
  if [ -n "$timing" ]; then
    python3 "$here/select_records.py" "$dir/iso_conditioned.jsonl" "$tmp/$s.iso.jsonl" random "$timing"
  else
    python3 "$here/select_records.py" "$dir/iso_torch.jsonl" "$tmp/$s.iso.jsonl" "$operands"
  fi
  base=h200-sxm
  if [ -n "${NO_POWER:-}" ]; then
    printf 'extends: h200-sxm\nname: h200-sxm-no-power\nmodel:\n  power:\n    limit: 0 W\n' >"$tmp/base.yaml"
    base="$tmp/base.yaml"
  fi
  "$c3sim" calibrate "$tmp/$s.iso.jsonl" --hardware "$base" -o "$tmp/$s.hw.yaml" 2>/dev/null
  ranks=$(ls "$dir"/rank*.json | sort -V)
  for mode in rank0 all_ranks; do
    if [ $mode = rank0 ]; then traces="$dir/rank0.json" run_flags=(); else traces=$ranks run_flags=(--all-gpus); fi
    # shellcheck disable=SC2086
    imported=$("$c3sim" import --from torch-profiler $traces --name "$s" -o "$tmp/$s.$mode.yaml" 2>&1 |
      awk '/rank0.json/ && !n++' | sed -e 's/.*rank0.json: //' -e 's/,/;/g')
    "$c3sim" run "$tmp/$s.$mode.yaml" --hardware "$tmp/$s.hw.yaml" --policy "$policies" --format csv \
      "${run_flags[@]}" 2>/dev/null | sed -n "2,/^$/p" | grep -v "^$" | python3 -c '
import csv, json, sys
d, s, imported, operands, mode = sys.argv[1:6]
summ = json.load(open(d + "/summary.json"))["per_rank"][0]["trace"]
meds = json.load(open(d + "/timing.json"))["unprofiled_step_us_median"]
med = meds[0] if mode == "rank0" else max(meds)
sync = " ".join(f"{k.replace(chr(32), chr(95))}={v}" for k, v in sorted(summ["cuda_sync"].items()))
for row in csv.reader(sys.stdin):
    pred, kernels = float(row[2]), summ["kernels"]
    print(f"{s},{operands},{mode},{row[1]},{kernels},{sync},{imported},{pred:.1f},{row[6]},{med:.1f},"
          f"{100 * (pred / med - 1):+.1f}")
' "$dir" "$s" "$imported" "$operands" "$mode"
  done
done

#!/bin/bash
# Each step predicted with and without the H200 board power limit (model.power), calibrated on the
# step's conditioned isolated records (random operands), from the repository root:
#   bash hardware/measurements/torch_steps/predict_power.sh [path/to/c3sim] [TIMING] [HBM_PJ]
# Three hardware files per step: `none` (c3sim calibrate --hardware h200-sxm on the records, as
# predict.sh), `merged` (that file plus the power block of examples/h200_power_cap.yaml, added
# after the fit: `extends:` the calibrated file) and `chained` (calibrated with
# examples/h200_power_cap.yaml as the base, so the GEMM stage and library entries are fitted with
# the limit in place). Prints one CSV line per step, hardware and mode (rank 0's trace alone; every
# rank's trace run with --all-gpus). HBM_PJ replaces the block's energy per HBM byte (pJ), e.g. 20, inside
# the 14-27 pJ that power/ bounds it to beside a capped GEMM (docs/known-limits.md): the step, its error against the unprofiled median (rank 0's;
# the slower rank's for all ranks), and per_kernel.py's GEMM and collective MAE / signed error (each
# rank's kernels against its own trace).
# WINDOW=20 (ms, environment) puts the limit on the draw averaged over that window
# (model.power.window) and runs each imported step as a steady-state iteration (`steady_state:
# true`: the 20 timed steps ran back to back), so it starts where its own end leaves the average.
# POWER_CAP=FILE (environment) takes the power block and the chained base from FILE instead of
# examples/h200_power_cap.yaml. NO_POWER=1 gives `none` the preset with its own limit off
# (`model.power.limit: 0 W`).
set -eu
c3sim=${1:-build/sim/cli/c3sim}
timing=${2:-conditioned}
here=hardware/measurements/torch_steps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cap=${POWER_CAP:-examples/h200_power_cap.yaml}
power=$(sed -n '/^  power:/,$p' "$cap")
window=${WINDOW:+    window: $WINDOW ms}
[ -n "$window" ] && power=$(printf '%s\n%s' "$power" "$window")
if [ -n "${3:-}" ]; then
  power=$(printf '%s\n' "$power" | sed -e "s/energy_per_hbm_byte: [0-9.]* pJ .*/energy_per_hbm_byte: $3 pJ/")
  sed -e "s/energy_per_hbm_byte: [0-9.]* pJ .*/energy_per_hbm_byte: $3 pJ/" "$cap" >"$tmp/power_cap.yaml"
else
  cp "$cap" "$tmp/power_cap.yaml"
fi
[ -n "$window" ] && printf '%s\n' "$window" >>"$tmp/power_cap.yaml"
steady() { [ -n "$window" ] && sed -i '0,/^    source:/s//    steady_state: true\n    source:/' "$1"; true; }
echo "step,hardware,mode,predicted_us,unprofiled_median_us,step_error_pct,gemm_n,gemm_mae_pct,gemm_signed_pct,coll_n,coll_mae_pct,coll_signed_pct"
for dir in "$here"/*/; do
  s=$(basename "$dir")
  [ -f "$dir/rank0.json" ] || continue
  python3 "$here/select_records.py" "$dir/iso_conditioned.jsonl" "$tmp/$s.iso.jsonl" random "$timing"
  base=h200-sxm
  if [ -n "${NO_POWER:-}" ]; then
    printf 'extends: h200-sxm\nname: h200-sxm-no-power\nmodel:\n  power:\n    limit: 0 W\n' >"$tmp/base.yaml"
    base="$tmp/base.yaml"
  fi
  "$c3sim" calibrate "$tmp/$s.iso.jsonl" --hardware "$base" -o "$tmp/$s.none.yaml" 2>/dev/null
  printf 'extends: %s\nname: %s-power\nmodel:\n%s\n' "$s.none.yaml" "$s" "$power" >"$tmp/$s.merged.yaml"
  "$c3sim" calibrate "$tmp/$s.iso.jsonl" --hardware "$tmp/power_cap.yaml" -o "$tmp/$s.chained.yaml" 2>/dev/null
  "$c3sim" import --from torch-profiler "$dir/rank0.json" --name "$s" -o "$tmp/$s.rank0.yaml" 2>/dev/null
  steady "$tmp/$s.rank0.yaml"
  # shellcheck disable=SC2046,SC2012
  "$c3sim" import --from torch-profiler $(ls "$dir"/rank*.json | sort -V) --name "$s" -o "$tmp/$s.all_ranks.yaml" 2>/dev/null
  steady "$tmp/$s.all_ranks.yaml"
  for hw in none merged chained; do
    for mode in rank0 all_ranks; do
      flags=()
      [ $mode = all_ranks ] && flags=(--all-gpus)
      pred=$("$c3sim" run "$tmp/$s.$mode.yaml" --hardware "$tmp/$s.$hw.yaml" --policy base --format csv \
        "${flags[@]}" 2>/dev/null | sed -n '2p' | cut -d, -f3)
      pk=$(python3 "$here/per_kernel.py" "$c3sim" "$tmp/$s.$hw.yaml" "$tmp/$s.$mode.yaml")
      python3 - "$dir" "$s" "$hw" "$mode" "$pred" "$pk" <<'PY'
import json, re, sys
d, s, hw, mode, pred, pk = sys.argv[1:7]
meds = json.load(open(d + "/timing.json"))["unprofiled_step_us_median"]
med = meds[0] if mode == "rank0" else max(meds)
cols = []
for kind in ("gemm", "collective"):
    m = re.search(kind + r": n (\d+), mean \|error\| ([-+\d.]+)%, mean signed ([-+\d.]+)%", pk)
    cols += list(m.groups()) if m else ["0", "", ""]
p = float(pred)
print(f"{s},{hw},{mode},{p:.1f},{med:.1f},{100 * (p / med - 1):+.1f}," + ",".join(cols))
PY
    done
  done
done

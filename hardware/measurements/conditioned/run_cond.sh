#!/bin/bash
# Conditioned c3bench measurements (issue 14): every timed trial, isolated or concurrent, starts
# after the same idle gap and spin (hardware/hip/bench.h Conditioning), trials rotate within each
# round, and every record carries the SM clock before and after each trial. Run on the lent
# machine from the repository root, with this script, ../device_env.sh, ../clocks/clock_recovery.py,
# ./h200_cond_calib.yaml, the ../h200_beyond_*.yaml files and c3bench with its two non-CUDA
# libraries (lib/) copied flat into one carried folder (DEVICE.md; here .c3bench_dev_harness/).
# The commands that produced the files here (README.md in this folder):
#   bash .c3bench_dev_harness/run_cond.sh calib h200x2_cond    # clock experiment + settings compared
#   bash .c3bench_dev_harness/run_cond.sh calib2 h200x2_cond2  # the same after the busy-wait change
#   bash .c3bench_dev_harness/run_cond.sh beyond h200x2_cond   # beyond-Table-I ag, a2a, red (defaults)
#   COND="--condition-idle-ms 0 --condition-spin-ms 2" \
#     bash .c3bench_dev_harness/run_cond.sh beyond h200x2_condwarm   # the same, spin only
#   bash .c3bench_dev_harness/run_cond.sh more h200x2_cond     # the other a2a and reductions (not run)
# Writes $OUT/TAG_*.jsonl and TAG_run.log. Each step has its own time limit; a step stopped by
# it leaves FILE.partial with what it measured.
set -o pipefail
PART=${1:?part: calib, calib2, beyond or more}
TAG=${2:?tag, e.g. h200x2_cond}
D=$(cd "$(dirname "$0")" && pwd)
C3BENCH_DEV=$D
source "$D/device_env.sh"  # exports, library path, B, T0 and step
LOG=$OUT/${TAG}_run.log
COND=${COND:-}  # extra c3bench options for every run (the defaults are the conditioned mode)
{ echo "part $PART, c3bench options: ${COND:-defaults}"
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit \
    --format=csv; } >>"$LOG" 2>&1
if [[ $PART == calib ]]; then
  timeout 90 python3 "$D/clock_recovery.py" >"$OUT/${TAG}_clock_recovery.jsonl" 2>>"$LOG"
  echo "clock_recovery rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
  # name order idle_ms spin_ms: the unconditioned harness first, then the candidates.
  while read -r name order idle spin; do
    step 60 "calib_$name" run "$D/h200_cond_calib.yaml" --policy base,sp,dma --trials 5 --warmups 1 \
      --trial-order "$order" --condition-idle-ms "$idle" --condition-spin-ms "$spin" \
      -o "$OUT/part_$name.jsonl"
  done <<'SETTINGS'
fixed fixed 0 0
rotate rotate 0 0
i5s2 rotate 5 2
i20s2 rotate 20 2
i50s2 rotate 50 2
i20s0 rotate 20 0
SETTINGS
  cat "$OUT"/part_*.jsonl >"$OUT/${TAG}_calib.jsonl" && rm -f "$OUT"/part_*.jsonl
elif [[ $PART == calib2 ]]; then
  # The same file after the host's idle wait became a busy-wait (the collectives after a sleep
  # were slow and noisy): spin only, 20 and 50 ms idle.
  while read -r name order idle spin; do
    step 60 "calib2_$name" run "$D/h200_cond_calib.yaml" --policy base,sp,dma --trials 5 --warmups 1 \
      --trial-order "$order" --condition-idle-ms "$idle" --condition-spin-ms "$spin" \
      -o "$OUT/part_$name.jsonl"
  done <<'SETTINGS'
b0s2 rotate 0 2
b20s2 rotate 20 2
b50s2 rotate 50 2
SETTINGS
  cat "$OUT"/part_*.jsonl >"$OUT/${TAG}_calib.jsonl" && rm -f "$OUT"/part_*.jsonl
elif [[ $PART == beyond ]]; then
  # shellcheck disable=SC2086
  step 250 beyond_ag run "$D/h200_beyond_ag.yaml" --policy all --trials 5 --warmups 1 $COND -o "$OUT/${TAG}_beyond_ag.jsonl"
  # shellcheck disable=SC2086
  step 120 beyond_a2a run "$D/h200_beyond_a2a.yaml" --policy all --trials 5 --warmups 1 $COND -o "$OUT/${TAG}_beyond_a2a.jsonl"
  # shellcheck disable=SC2086
  step 80 beyond_red run "$D/h200_beyond_red.yaml" --trials 5 --warmups 1 $COND -o "$OUT/${TAG}_beyond_red.jsonl"
else
  # shellcheck disable=SC2086
  step 150 beyond_a2a_more run "$D/h200_beyond_a2a_more.yaml" --policy all --trials 5 --warmups 1 $COND \
    -o "$OUT/${TAG}_beyond_a2a_more.jsonl"
  # shellcheck disable=SC2086
  step 250 beyond_red_more run "$D/h200_beyond_red_more.yaml" --trials 5 --warmups 1 $COND \
    -o "$OUT/${TAG}_beyond_red_more.jsonl"
fi
ls -la "$OUT"

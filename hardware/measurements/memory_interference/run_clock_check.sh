#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root with .c3bench_dev_lorder/ as in
# run_memory_interference.sh:  bash hardware/measurements/memory_interference/run_clock_check.sh
# clock_check.yaml's three programs, 40 trials each, no conditioning gap (so the phases are long
# and back to back), with the SM clock, board power and throttle reasons sampled every 5 ms.
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/clock_check_run.log
source hardware/measurements/device_env.sh
Y=hardware/measurements/memory_interference/clock_check.yaml
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,nounits -lms 5 > "$OUT/clock_check_smi.csv" &
SMI=$!
for p in gemm100_alone mem32_alone mem32_24GiB_beside_g8192x8192x57344; do
  echo "$p start $(date +%H:%M:%S.%N)" >> "$LOG"
  step 120 "$p" run "$Y" --only "$p" --hardware h200-sxm --trials 40 --warmups 2 --condition-idle-ms 0 --condition-spin-ms 0 -o "$OUT/h200x1_clock_check_$p.jsonl"
  echo "$p end $(date +%H:%M:%S.%N)" >> "$LOG"
done
kill $SMI

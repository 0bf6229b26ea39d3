#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), as run_hold_tail.sh (carried .c3bench_dev_warm/ with hold_tail):
#   bash hardware/measurements/launch_order/run_hold_clock.sh
# Does a short hold lower the SM clock for the rest of the GEMM (the power cap), or cost time at
# the same clock? hold_tail --clock: paired repetitions with a one-warp clock probe in every mode.
set -u
D=$PWD/.c3bench_dev_warm
export C3BENCH_DEV=$D
LOG=$OUT/hold_clock_run.log
source hardware/measurements/device_env.sh
O=$OUT/h200x1_hold_clock.jsonl
run() {
  timeout 200 "$D/hold_tail" --clock --reps 15 "$@" >> "$O" 2>>"$LOG"
  echo "$* rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
}
run --fill random --shape 10240x8192x8192 --holds 32:50,32:100
run --fill random --shape 8192x8192x28672 --holds 32:85,32:340,100:170
run --fill random --shape 16384x8192x53248 --holds 32:180,32:570
# The same with constant operands: less power, so what a hold costs beyond the clock.
run --fill constant --shape 8192x8192x28672 --holds 32:85,32:340,100:170
run --fill constant --shape 16384x8192x53248 --holds 32:180,32:570

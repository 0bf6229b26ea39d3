#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), as run_hold_tail.sh (carried .c3bench_dev_warm/ with hold_tail):
#   bash hardware/measurements/launch_order/run_hold_sweep.sh
# Which rule a late CTA follows: holds of 1-100 SMs for a quarter to two tiles before two GEMMs
# (tiles of ~99 and ~338 us), 15 paired repetitions each.
set -u
D=$PWD/.c3bench_dev_warm
export C3BENCH_DEV=$D
LOG=$OUT/hold_sweep_run.log
source hardware/measurements/device_env.sh
O=$OUT/h200x1_hold_sweep.jsonl
run() {
  timeout 200 "$D/hold_tail" --reps 15 "$@" >> "$O" 2>>"$LOG"
  echo "$* rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
}
run --shape 10240x8192x8192 --holds 1:25,1:50,1:100,1:200,2:50,2:100,8:50,8:100,32:25,32:100,100:50,100:100,100:200
run --shape 8192x8192x28672 --holds 1:85,1:170,1:340,1:680,2:170,2:340,8:170,8:340,32:85,32:340,100:170,100:340,100:680

#!/usr/bin/env bash
# Fourth call (same folder and tool as run_clock_trace.sh): the 19 GEMM shapes of the beyond-Table-I
# files (../gemm_refit/) with random operands, conditioned, at SM targets 64, 100, 116 and 128 with
# the probe (the clock during the GEMM) and 132 without it: what a power stage in calibrate would
# fit (each shape's rate below the cap and where the cap binds).
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace4_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace4.jsonl
for shape in 2048x2048x2048 4096x4096x4096 8192x1024x8192 8192x8192x256 8192x8192x10240 8192x8192x28672 \
    8192x8192x57344 8192x10240x8192 10240x8192x8192 16384x8192x18432 16384x8192x53248 16384x8192x106496 \
    16384x16384x512 16384x18432x8192 28672x8192x8192 53248x8192x16384 53248x16384x8192 57344x512x8192 \
    57344x8192x8192; do
  for sms in 64 100 116 128; do
    timeout 120 "$CT" --shape $shape --sms $sms --fill random --idle-ms 20 --spin-ms 2 --reps 5 >> "$O" 2>>"$LOG"
  done
  timeout 120 "$CT" --shape $shape --sms 132 --fill random --no-probe --idle-ms 20 --spin-ms 2 --reps 5 >> "$O" 2>>"$LOG"
  echo "$shape rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
done

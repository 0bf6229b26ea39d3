#!/usr/bin/env bash
# Second call (same folder and tool as run_clock_trace.sh): why cuBLAS on every SM is slower than
# on 131. Each GEMM at SM targets 132 .. 120, with the probe and without it (--no-probe: events
# only), conditioned; the algorithm ids cuBLASLt chose are in each record.
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace2_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace2.jsonl
for shape in 8192x8192x8192 8192x8192x57344 16384x8192x16384 4096x4096x4096; do
  for sms in 132 131 130 128 124 120; do
    timeout 120 "$CT" --shape $shape --sms $sms --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
    echo "$shape $sms probe rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
    timeout 120 "$CT" --shape $shape --sms $sms --idle-ms 20 --spin-ms 2 --reps 6 --no-probe >> "$O" 2>>"$LOG"
    echo "$shape $sms no-probe rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
  done
done

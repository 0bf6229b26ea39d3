#!/usr/bin/env bash
# Third call (same folder and tool as run_clock_trace.sh): the operands' data. Random bf16
# operands (as c3bench's and PyTorch's) against constant ones, at SM targets 16 .. 132 (the probe
# beside the GEMM up to 128; 132 without it), conditioned and back to back.
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace3_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace3.jsonl
for shape in 8192x8192x8192 8192x8192x57344 16384x8192x16384; do
  for fill in random constant; do
    for sms in 16 32 64 96 112 128; do
      timeout 120 "$CT" --shape $shape --sms $sms --fill $fill --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
      echo "$shape $sms $fill cond rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
    done
    timeout 120 "$CT" --shape $shape --sms 132 --fill $fill --no-probe --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
    timeout 120 "$CT" --shape $shape --sms 128 --fill $fill --idle-ms 0 --spin-ms 0 --reps 12 >> "$O" 2>>"$LOG"
    timeout 120 "$CT" --shape $shape --sms 64 --fill $fill --idle-ms 0 --spin-ms 0 --reps 12 >> "$O" 2>>"$LOG"
    echo "$shape $fill 132/b2b rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
  done
  timeout 120 "$CT" --shape $shape --fill random --mem-sms 32 --mem-gib 4 --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
  timeout 120 "$CT" --shape $shape --fill random --mem-sms 16 --mem-gib 4 --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
  echo "$shape mem rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
done

#!/usr/bin/env bash
# Fifth call (same folder and tool as run_clock_trace.sh; clock_trace now times the memory kernel
# itself, mem_us): is a copy loop beside a power-capped GEMM slowed by the GPU-wide clock or by the
# GEMM's HBM traffic? A stream kernel on 16 or 32 SMs moves 4 GiB beside a GEMM on the other SMs
# (one for the probe) whose operands are random (the cap binds, clock ~1550-1700 MHz) or constant
# (same HBM traffic, less power, clock ~1800), and beside a 2048^3 GEMM (the stream kernel then runs
# alone after 30 us). Same traffic, different clock: the difference is the clock's.
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace5_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace5.jsonl
for mem in 16 32; do
  sms=$((132 - 1 - mem))
  for shape in 2048x2048x2048 8192x8192x57344 16384x8192x53248 57344x8192x8192; do
    for fill in random constant; do
      timeout 120 "$CT" --shape $shape --sms $sms --mem-sms $mem --mem-gib 4 --fill $fill --idle-ms 20 \
        --spin-ms 2 --reps 5 >> "$O" 2>>"$LOG"
      echo "$shape mem=$mem $fill rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
    done
  done
done

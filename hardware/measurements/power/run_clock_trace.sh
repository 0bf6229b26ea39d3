#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root, with clock_trace (built from
# clock_trace.cu here: nvcc -O2 -std=c++17 -arch=sm_90 clock_trace.cu -lcublasLt) carried in
# .c3bench_dev_lorder/:  bash hardware/measurements/power/run_clock_trace.sh
# The SM clock read on the GPU during cuBLAS GEMMs on 16-131 SMs, conditioned as c3bench's trials
# (20 ms idle + 2 ms spin) and back to back (no gap), and beside a memory-bound kernel.
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace.jsonl
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/clock_trace_nvidia_smi.txt"
for shape in 8192x8192x8192 8192x8192x57344 4096x4096x4096 16384x16384x512; do
  for sms in 16 32 64 96 116 131; do
    timeout 120 "$CT" --shape $shape --sms $sms --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
    echo "$shape $sms conditioned rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
    timeout 120 "$CT" --shape $shape --sms $sms --idle-ms 0 --spin-ms 0 --reps 6 >> "$O" 2>>"$LOG"
    echo "$shape $sms back-to-back rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
  done
  for mem in 16 32; do
    for gib in 1 4; do
      timeout 120 "$CT" --shape $shape --mem-sms $mem --mem-gib $gib --idle-ms 20 --spin-ms 2 --reps 6 >> "$O" 2>>"$LOG"
      echo "$shape mem $mem ${gib}GiB conditioned rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
    done
  done
done

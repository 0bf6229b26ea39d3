#!/usr/bin/env bash
# Tenth call (same tool and folder as run_clock_trace9.sh). Call 9: on 82-115 SMs the GEMM lost
# 3-7% beside the stream kernel whatever its bandwidth (0.13-2.07 TB/s), on 66 SMs 2-54% rising
# steeply with it, and cuBLAS planned 66 SMs with another tile and cluster shape (the records'
# `algo`). Is the steep loss the 66-SM GEMM's, or the 64 streaming SMs'? The 66-SM GEMM beside 32
# and 48 streaming SMs (the rest idle), and the 82-SM GEMM beside 32; constant operands.
set -u
D=$PWD/build-power
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace10_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace10.jsonl
nvidia-smi > "$OUT/clock_trace10_nvidia_smi.txt"
trial() {  # NAME ARGS...
  local name=$1
  shift
  timeout 120 "$CT" --shape 8192x8192x57344 "$@" >> "$O" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
}
C="--idle-ms 20 --spin-ms 2 --reps 5 --fill constant"
L="--mem-threads 1024 --mem-loop --mem-gib 0.5"
trial "alone 66" --sms 66 $C
for m in 16 32 48; do
  for s in 0 1000; do trial "stream 66+$m sleep $s" --sms 66 --mem-sms $m $L --mem-sleep-ns $s $C; done
done
trial "alone 82" --sms 82 $C
for s in 0 1000; do trial "stream 82+32 sleep $s" --sms 82 --mem-sms 32 $L --mem-sleep-ns $s $C; done
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >> "$OUT/clock_trace10_nvidia_smi.txt"
echo "done at $(($(date +%s) - T0)) s" >> "$LOG"

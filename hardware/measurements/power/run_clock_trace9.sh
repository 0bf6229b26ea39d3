#!/usr/bin/env bash
# Ninth call (same tool and folder as run_clock_trace8.sh). Call 8 found the GEMM's loss beside a
# paced stream kernel far from linear in its bandwidth, and not one function of the HBM bandwidth
# alone: on 66 SMs beside 64 streaming it lost 2% at 0.51 TB/s and 27-29% at 1.66, on 99 beside 32
# 7-8% at 1.5 TB/s. This call asks what the loss follows (constant operands: the clock stays put):
#   1. the same paced bandwidths from 16, 32, 48 and 64 streaming SMs (the GEMM on the rest): the
#      bandwidth, or the number of SMs streaming?
#   2. a stream kernel whose 16 MiB fits in L2 beside the GEMM: HBM, or the path to L2?
#   3. a second shape (16384x8192x16384) on the 66 / 64 split.
set -u
D=$PWD/build-power
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace9_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace9.jsonl
nvidia-smi > "$OUT/clock_trace9_nvidia_smi.txt"
Q=timestamp,power.draw,power.draw.instant,clocks.sm,clocks.mem,clocks_event_reasons.active,temperature.gpu
nvidia-smi --query-gpu=$Q --format=csv -lms 100 > "$OUT/nvidia_smi_trace9.csv" 2>&1 &
SMI=$!
trial() {  # NAME SHAPE ARGS...
  local name=$1 shape=$2
  shift 2
  timeout 120 "$CT" --shape "$shape" "$@" >> "$O" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
}
C="--idle-ms 20 --spin-ms 2 --reps 5 --fill constant"
S=8192x8192x57344
for split in "115 16" "99 32" "82 48" "66 64"; do
  set -- $split
  g=$1 m=$2
  trial "alone $g" $S --sms $g $C
  trial "spin $g+$m" $S --sms $g --mem-sms $m --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-spin $C
  for s in 0 1000 2000 3000; do
    trial "stream $g+$m sleep $s" $S --sms $g --mem-sms $m --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-sleep-ns $s $C
  done
  trial "stream in L2 $g+$m" $S --sms $g --mem-sms $m --mem-threads 1024 --mem-loop --mem-gib 0.016 $C
done
S=16384x8192x16384
trial "alone 66 $S" $S --sms 66 $C
trial "spin 66+64 $S" $S --sms 66 --mem-sms 64 --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-spin $C
for s in 0 1000 3000; do
  trial "stream 66+64 sleep $s $S" $S --sms 66 --mem-sms 64 --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-sleep-ns $s $C
done
kill $SMI
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >> "$OUT/clock_trace9_nvidia_smi.txt"
echo "done at $(($(date +%s) - T0)) s" >> "$LOG"

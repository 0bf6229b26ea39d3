#!/usr/bin/env bash
# Eighth call (same tool and folder as run_clock_trace7.sh): the GEMM beside the stream kernel at
# several bandwidths on the same SMs. Calls 6 and 7 varied the side traffic by its SM count or its
# block size, which also changed what the GEMM had or shared; here the stream kernel keeps its
# SMs and 1024-thread blocks and is paced (--mem-sleep-ns: a pause after each 16-byte copy), so
# only its bandwidth moves. Two splits (GEMM on 99 SMs beside 32 streaming, on 66 beside 64), each
# with the GEMM alone and beside a side kernel that holds the SMs and moves nothing (--mem-spin) as
# controls, random operands (the 700 W cap binds) and constant ones (same traffic, below the cap):
# is the GEMM's loss linear in the bandwidth beside it, or does it grow faster near saturation?
set -u
D=$PWD/build-power
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace8_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace8.jsonl
nvidia-smi > "$OUT/clock_trace8_nvidia_smi.txt"
Q=timestamp,power.draw,power.draw.instant,clocks.sm,clocks.mem,clocks_event_reasons.active,temperature.gpu
nvidia-smi --query-gpu=$Q --format=csv -lms 100 > "$OUT/nvidia_smi_trace8.csv" 2>&1 &
SMI=$!
trial() {  # NAME ARGS...
  local name=$1
  shift
  timeout 120 "$CT" --shape 8192x8192x57344 "$@" >> "$O" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
}
C="--idle-ms 20 --spin-ms 2 --reps 5"
for f in random constant; do
  for split in "99 32" "66 64"; do
    set -- $split
    g=$1 m=$2
    trial "$f alone $g" --fill $f --sms $g $C
    trial "$f spin $g+$m" --fill $f --sms $g --mem-sms $m --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-spin $C
    for s in 0 300 1000 3000; do
      trial "$f stream $g+$m sleep $s" --fill $f --sms $g --mem-sms $m --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-sleep-ns $s $C
    done
  done
done
kill $SMI
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >> "$OUT/clock_trace8_nvidia_smi.txt"
echo "done at $(($(date +%s) - T0)) s" >> "$LOG"

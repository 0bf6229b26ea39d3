#!/usr/bin/env bash
# Sixth call: does traffic beside a power-capped GEMM slow it through the clock? The GEMM
# 8192x8192x57344 bf16, random operands (the 700 W cap binds on >= ~100 SMs), beside
#   - device-to-device copies (cudaMemcpyAsync, 0.25 GiB each, own stream), looped for the GEMM's
#     duration, on 131 SMs with the clock probe and on 132 without it (run_clock_trace7.sh's
#     --copy-check finds that these copies run on the SMs, not on a copy engine);
#   - the stream kernel looped for the GEMM's duration (--mem-loop, 0.5 GiB read + written a pass)
#     on 4 SMs (GEMM on 127), 16 SMs at 128 / 256 / 1024 threads (GEMM on 115: same SMs, three
#     bandwidths) and 32 SMs (GEMM on 99), each against the GEMM alone on the same SM count;
# conditioned (20 ms idle + 2 ms spin, 6 repetitions) and back to back (no idle, no spin, 20).
# Board power: NVML's instantaneous field polled every ~1 ms during each repetition (in the
# JSONL), and nvidia-smi every 100 ms over the whole call (nvidia_smi_trace6.csv).
# Built here and carried: nvcc -O2 -std=c++17 -arch=sm_90 hardware/measurements/power/clock_trace.cu
#   -lcublasLt -ldl -o build-power/clock_trace
set -u
D=$PWD/build-power
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace6_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace6.jsonl
S="--shape 8192x8192x57344 --fill random"
nvidia-smi > "$OUT/clock_trace6_nvidia_smi.txt"
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >> "$OUT/clock_trace6_nvidia_smi.txt"
Q=timestamp,power.draw,power.draw.instant,clocks.sm,clocks.mem,clocks_event_reasons.active,temperature.gpu
nvidia-smi --query-gpu=$Q --format=csv > /dev/null 2>&1 || Q=timestamp,power.draw,clocks.sm,clocks.mem,temperature.gpu
nvidia-smi --query-gpu=$Q --format=csv -lms 100 > "$OUT/nvidia_smi_trace6.csv" 2>&1 &
SMI=$!
trial() {  # NAME ARGS...
  local name=$1
  shift
  timeout 120 "$CT" $S "$@" >> "$O" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
}
for mode in cond b2b; do
  if [ $mode = cond ]; then C="--idle-ms 20 --spin-ms 2 --reps 6"; else C="--idle-ms 0 --spin-ms 0 --reps 20"; fi
  trial "$mode alone 131" --sms 131 $C
  trial "$mode copy 131" --sms 131 --copy-gib 0.25 $C
  trial "$mode alone 132 no-probe" --sms 132 --no-probe $C
  trial "$mode copy 132 no-probe" --sms 132 --no-probe --copy-gib 0.25 $C
  for g in 127 115 99; do trial "$mode alone $g" --sms $g $C; done
  trial "$mode stream 4x1024" --sms 127 --mem-sms 4 --mem-threads 1024 --mem-loop --mem-gib 0.5 $C
  for t in 128 256 1024; do
    trial "$mode stream 16x$t" --sms 115 --mem-sms 16 --mem-threads $t --mem-loop --mem-gib 0.5 $C
  done
  trial "$mode stream 32x1024" --sms 99 --mem-sms 32 --mem-threads 1024 --mem-loop --mem-gib 0.5 $C
done
kill $SMI
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >> "$OUT/clock_trace6_nvidia_smi.txt"
echo "done at $(($(date +%s) - T0)) s" >> "$LOG"

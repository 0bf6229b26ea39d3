#!/usr/bin/env bash
# Seventh call (same tool and folder as run_clock_trace6.sh). Call 6's device-to-device copies ran
# at 4.1 TB/s alone but 0.23-0.28 TB/s beside the GEMM, like a kernel squeezed onto the SMs the GEMM
# leaves; and the GEMM on 115 SMs lost ~5% beside the stream kernel on 16 SMs at 0.12, 0.23 and
# 0.8 TB/s alike. So:
#   1. --copy-check: does each copy (memcpy, batch with the overlap-with-compute hint, h2d) finish
#      while a kernel holds every SM, i.e. does it run on a copy engine?
#   2. the GEMM on 131 SMs beside the copy-engine copies (batch, h2d), and memcpy again, with the
#      GEMM alone on this machine as the baseline; conditioned and back to back;
#   3. the GEMM on 115 SMs beside a side kernel on 16 SMs that moves nothing (--mem-spin), and
#      beside the stream kernel at 32 and 1024 threads: is the 5% the traffic or the SMs taken?
#   4. the GEMM on 99 SMs beside the stream kernel on 32 SMs with constant operands (less power,
#      same traffic) against random: is the lower clock beside 1.5 TB/s the power cap?
set -u
D=$PWD/build-power
export C3BENCH_DEV=$D
LOG=$OUT/clock_trace7_run.log
source hardware/measurements/device_env.sh
CT=$D/clock_trace
O=$OUT/h200x1_clock_trace7.jsonl
nvidia-smi > "$OUT/clock_trace7_nvidia_smi.txt"
Q=timestamp,power.draw,power.draw.instant,clocks.sm,clocks.mem,clocks_event_reasons.active,temperature.gpu
nvidia-smi --query-gpu=$Q --format=csv -lms 100 > "$OUT/nvidia_smi_trace7.csv" 2>&1 &
SMI=$!
trial() {  # NAME ARGS...
  local name=$1
  shift
  timeout 120 "$CT" --shape 8192x8192x57344 "$@" >> "$O" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" >> "$LOG"
}
for m in memcpy batch h2d; do trial "copy-check $m" --copy-gib 0.25 --copy-mode $m --copy-check --reps 1; done
R="--fill random"
for mode in cond b2b; do
  if [ $mode = cond ]; then C="--idle-ms 20 --spin-ms 2 --reps 6"; else C="--idle-ms 0 --spin-ms 0 --reps 20"; fi
  trial "$mode alone 131" $R --sms 131 $C
  trial "$mode copy batch 131" $R --sms 131 --copy-gib 0.25 --copy-mode batch $C
  trial "$mode copy h2d 131" $R --sms 131 --copy-gib 0.03 --copy-mode h2d $C
  trial "$mode copy memcpy 131" $R --sms 131 --copy-gib 0.25 $C
  trial "$mode alone 115" $R --sms 115 $C
  trial "$mode spin 16x1024" $R --sms 115 --mem-sms 16 --mem-threads 1024 --mem-loop --mem-gib 0.5 --mem-spin $C
  trial "$mode stream 16x32" $R --sms 115 --mem-sms 16 --mem-threads 32 --mem-loop --mem-gib 0.5 $C
  trial "$mode stream 16x1024" $R --sms 115 --mem-sms 16 --mem-threads 1024 --mem-loop --mem-gib 0.5 $C
done
C="--idle-ms 20 --spin-ms 2 --reps 6"
for f in random constant; do
  trial "cond alone 99 $f" --fill $f --sms 99 $C
  trial "cond stream 32x1024 $f" --fill $f --sms 99 --mem-sms 32 --mem-threads 1024 --mem-loop --mem-gib 0.5 $C
done
kill $SMI
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >> "$OUT/clock_trace7_nvidia_smi.txt"
echo "done at $(($(date +%s) - T0)) s" >> "$LOG"

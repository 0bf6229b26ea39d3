#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root with the carried folder .c3bench_dev_warm/
# holding placement (nvcc -O2 -std=c++17 -arch=sm_90 placement.cu -lcublasLt -lcuda -o placement):
#   bash hardware/measurements/placement/run_placement.sh
# The GPC map, then per repetition a 32-CTA (and a 16-CTA) NCCL-shaped copy kernel alone, in a
# 32-SM green context, launched before and behind a 2048^3 and an 8192^3 GEMM.
set -u
D=$PWD/.c3bench_dev_warm
export C3BENCH_DEV=$D
LOG=$OUT/placement_run.log
source hardware/measurements/device_env.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/nvidia_smi.txt"
T0=$(date +%s)
timeout 200 "$D/placement" --ctas 32 --bytes 4GiB --reps 8 > "$OUT/h200x1_placement_32.jsonl" 2>>"$LOG"
echo "32 CTAs rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
timeout 200 "$D/placement" --ctas 16 --bytes 2GiB --reps 8 --green 16 > "$OUT/h200x1_placement_16.jsonl" 2>>"$LOG"
echo "16 CTAs rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"

#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root with the carried folder .c3bench_dev_warm/
# (c3bench built from this commit's hardware/hip, lib/ with yaml-cpp and fmt) holding also hold_tail
# (nvcc -O2 -std=c++17 -arch=sm_90 hold_tail.cu -lcublasLt -o hold_tail):
#   bash hardware/measurements/launch_order/run_hold_tail.sh
# Per shape, each repetition runs the GEMM alone and behind each hold (SMs:us), back to back; then
# c3bench runs memory_first_vs_partition.yaml (10 trials + 2 warm-ups, conditioned).
set -u
D=$PWD/.c3bench_dev_warm
export C3BENCH_DEV=$D
LOG=$OUT/hold_tail_run.log
source hardware/measurements/device_env.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/nvidia_smi.txt"
O=$OUT/h200x1_hold_tail.jsonl
run() {
  timeout 120 "$D/hold_tail" --reps 15 "$@" >> "$O" 2>>"$LOG"
  echo "$* rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
}
run --shape 4096x4096x4096 --holds 32:50,32:100,64:100
run --shape 57344x512x8192 --holds 32:180,32:300
run --shape 10240x8192x8192 --holds 16:180,32:50,32:180,32:700,64:180
run --shape 8192x8192x28672 --holds 16:600,32:180,32:600,32:2500,64:600
run --shape 16384x8192x53248 --holds 16:1200,32:180,32:1200,32:5000,64:1200
run --shape 16384x8192x106496 --holds 32:180,32:2300,64:2300
step 300 programs run hardware/measurements/launch_order/memory_first_vs_partition.yaml --hardware h200-sxm \
  --trials 10 --warmups 2 -o "$OUT/h200x1_memory_first_vs_partition.jsonl"

#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root with the carried folder
# .c3bench_dev_lorder/ (c3bench built from this commit's hardware/hip, lib/ with yaml-cpp and fmt):
#   bash hardware/measurements/memory_interference/run_memory_interference.sh
# Each program of gemm_beside_memory_kernel.yaml (make_programs.py) as written (policy base): 10 trials
# + 2 warm-ups, each conditioned (20 ms idle + 2 ms spin, c3bench's default).
set -u
D=$PWD/.c3bench_dev_lorder
export C3BENCH_DEV=$D
LOG=$OUT/run.log
source hardware/measurements/device_env.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/nvidia_smi.txt"
Y=hardware/measurements/memory_interference/gemm_beside_memory_kernel.yaml
step 400 programs run "$Y" --hardware h200-sxm --trials 10 --warmups 2 -o "$OUT/h200x1_gemm_beside_memory_kernel.jsonl"

#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root with the carried folder .c3bench_dev_refit/
# (c3bench at main 280b925, lib/ with yaml-cpp and fmt, this script and beyond_gemms.yaml):
#   bash .c3bench_dev_refit/run_gemm_refit.sh
# The beyond-Table-I set's 19 GEMMs alone with the fixed harness (cuBLASLt, algorithm chosen once per
# shape and SM target, start hold; hardware/measurements/harness_gemm/README.md): on all 132 SMs
# (gemm_sms) and beside SM groups of 16 and 32 (gemm_sms_rest: the 116 / 100 SMs rp:16 / rp:32 leave
# the GEMM), conditioned trials (20 ms idle + 2 ms spin before each, c3bench's default).
set -u
D=$PWD/.c3bench_dev_refit
export C3BENCH_DEV=$D
LOG=$OUT/run.log
source "$D/device_env.sh"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw --format=csv > "$OUT/nvidia_smi.txt"
step 240 gemm_sms sweep "$D/beyond_gemms.yaml" --what gemm_sms --sm-limits 132 --trials 8 --warmups 2 -o "$OUT/h200x1_refit_gemm_full.jsonl"
step 300 gemm_rest sweep "$D/beyond_gemms.yaml" --what gemm_sms_rest --sm-limits 16,32 --trials 8 --warmups 2 -o "$OUT/h200x1_refit_gemm_rest.jsonl"

#!/usr/bin/env bash
# 1 x H200 (kind nvidia-h200), from the repository root with the carried folder .c3bench_dev_power/
# (c3bench at main 280b925 -- hardware/hip unchanged since --, lib/ with yaml-cpp and fmt,
# ../device_env.sh):  bash hardware/measurements/power/run_power.sh
# Four GEMMs on 16 .. 132 SMs (green-context SM groups, gemm_sms), 8 trials + 2 warmups, each trial
# conditioned (20 ms idle + 2 ms spin, c3bench's default); every record carries the SM clock and
# board power read after each trial. Then the same on 132 SMs back to back (no idle gap), where
# a long GEMM runs into the power limit.
set -u
D=$PWD/.c3bench_dev_power
export C3BENCH_DEV=$D
LOG=$OUT/run.log
source "$D/device_env.sh"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit,power.default_limit,power.max_limit,temperature.gpu --format=csv > "$OUT/nvidia_smi.txt"
Y=hardware/measurements/power/power_gemms.yaml
step 400 gemm_sms sweep "$Y" --what gemm_sms --sm-limits 16,32,48,64,80,96,112,132 --trials 8 --warmups 2 -o "$OUT/h200x1_power_gemm_sms.jsonl"
step 300 back_to_back sweep "$Y" --what gemm_sms --sm-limits 64,132 --trials 20 --warmups 2 --condition-idle-ms 0 --condition-spin-ms 0 -o "$OUT/h200x1_power_gemm_sms_b2b.jsonl"

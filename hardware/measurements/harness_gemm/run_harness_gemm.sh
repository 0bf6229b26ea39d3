#!/usr/bin/env bash
# Issue 14 on 1 x H200 (kind nvidia-h200), one device call, from the repository root with the
# carried folder .c3bench_dev_harness/ (c3bench = this branch, c3bench_before = main's build before
# it, lib/, device_env.sh, gemm_k.yaml, gemm_k_sweep.py, this script):
#   bash .c3bench_dev_harness/run_harness_gemm.sh
# Writes under $OUT: before_gemm_k.jsonl, after_gemm_k.jsonl (isolated GEMMs at all SMs, default
# conditioning, 12 trials), after_gemm_launch.jsonl (env details.gemm_launch), torch_gemm_k_sweep.jsonl
# (the PyTorch loop of ../gemm_k again, same machine), nvidia_smi.txt and run.log.
set -u
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
D=$PWD/.c3bench_dev_harness
export C3BENCH_DEV=$D
LOG=$OUT/run.log
source "$D/device_env.sh"
nvidia-smi >"$OUT/nvidia_smi.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >>"$LOG" 2>&1
S=$D/gemm_k.yaml
B=$D/c3bench_before
step 120 before_gemm_k sweep "$S" --what gemm_sms --sm-limits 132 --trials 12 --warmups 2 -o "$OUT/before_gemm_k.jsonl"
B=$D/c3bench
step 120 after_gemm_k sweep "$S" --what gemm_sms --sm-limits 132 --trials 12 --warmups 2 -o "$OUT/after_gemm_k.jsonl"
step 120 after_gemm_launch sweep "$S" --what gemm_launch --trials 50 -o "$OUT/after_gemm_launch.jsonl"
timeout 120 python3 "$D/gemm_k_sweep.py" >"$OUT/torch_gemm_k_sweep.jsonl" 2>>"$LOG"
echo "torch_gemm_k rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"

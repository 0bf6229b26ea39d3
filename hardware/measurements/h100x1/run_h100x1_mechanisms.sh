#!/bin/bash
# One H100 SXM (kind nvidia-h100-x1): the Hopper family's H200-derived mechanisms checked with no
# refit -- the Table I GEMMs alone on 8..132 SMs (persistent GEMMs sharing a tile queue on an SM
# partition) and a GEMM beside a memory-bound kernel at several bandwidths (memory interference).
# From the repository root, with c3bench, lib/ (yaml-cpp, fmt), device_env.sh, h200_table1.yaml and
# gemm_beside_memory_kernel.yaml carried in one folder DIR:
#   C3BENCH_DEV=$PWD/DIR bash DIR/run_h100x1_mechanisms.sh
# Writes $OUT/h100x1_sweep_gemm.jsonl, $OUT/h100x1_gemm_beside_memory_kernel.jsonl, h100x1_run.log.
set -o pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
source "$DIR/device_env.sh"  # exports, library path, B, T0 and step
LOG=$OUT/h100x1_run.log
{ nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit,memory.total \
    --format=csv; echo "nccl: $NCCLLIB"; echo "cublas: $CUBLAS"; } >>"$LOG" 2>&1
step 60 gemm_sms sweep "$DIR/h200_table1.yaml" --what gemm_sms --sm-limits 8,16,32,48,64,80,96,112,124,132 \
  --trials 3 --warmups 1 -o "$OUT/h100x1_sweep_gemm.jsonl"
step 400 programs run "$DIR/gemm_beside_memory_kernel.yaml" --hardware h100-sxm --trials 10 --warmups 2 \
  -o "$OUT/h100x1_gemm_beside_memory_kernel.jsonl"
ls -la "$OUT" | tee -a "$LOG"

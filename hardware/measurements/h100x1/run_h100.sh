#!/bin/bash
# On the lent nvidia-h100-x1 machine, from the repository root, with the carried folder
# .c3bench_dev_h100/ (this script, hbm_copy.py and ../dtype_h200/gemm_dtype_sweep.py):
#   bash .c3bench_dev_h100/run_h100.sh
# nvidia-smi, the per-dtype GEMM sweep (the H200 one, unchanged: Table I, 4096^3, one-wave shape;
# bf16, fp16, fp8 e4m3), then the device-to-device copy bandwidth; everything under $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1
DEV=.c3bench_dev_h100
{ nvidia-smi; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE; } >"$OUT/nvidia_smi.txt" 2>&1
T0=$(date +%s)
python3 "$DEV/gemm_dtype_sweep.py" -o "$OUT/h100_gemm_dtype.jsonl" --raw "$OUT/h100_gemm_dtype_trials.jsonl" \
  2>&1 | tee "$OUT/run.log"
echo "gemm_dtype_sweep rc=$? at $(( $(date +%s) - T0 )) s" | tee -a "$OUT/run.log"
python3 "$DEV/hbm_copy.py" >"$OUT/h100_hbm_copy.jsonl" 2>>"$OUT/run.log"
echo "hbm_copy rc=$? at $(( $(date +%s) - T0 )) s" | tee -a "$OUT/run.log"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$OUT/nvidia_smi_after.txt" 2>&1

#!/bin/bash
# On the lent nvidia-h200 machine, from the repository root, with this folder carried as DEV
# (default .c3bench_dev_dtype): nvidia-smi, then gemm_dtype_sweep.py, everything under $OUT.
#   DEV=.c3bench_dev_dtype bash .c3bench_dev_dtype/run_dtype.sh
set -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
DEV=${DEV:-.c3bench_dev_dtype}
OUT=${OUT:-/tmp/dtype_out}
mkdir -p "$OUT"
{ nvidia-smi; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE; } >"$OUT/nvidia_smi.txt" 2>&1
T0=$(date +%s%N)
python3 "$DEV/gemm_dtype_sweep.py" -o "$OUT/h200_gemm_dtype.jsonl" --raw "$OUT/h200_gemm_dtype_trials.jsonl" \
  2>&1 | tee "$OUT/run.log"
rc=$?
echo "gemm_dtype_sweep rc=$rc wall $(( ($(date +%s%N) - T0) / 1000000 )) ms" | tee -a "$OUT/run.log"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$OUT/nvidia_smi_after.txt" 2>&1
exit $rc

#!/bin/bash
# On the lent nvidia-h200 machine, from the repository root, with the carried folder
# .c3bench_dev_kernels/ (gemm_kernel_names.py, run_kernels.sh, ../gemm_refit/beyond_gemms.yaml):
#   bash .c3bench_dev_kernels/run_kernels.sh
set -o pipefail
D=.c3bench_dev_kernels
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/nvidia_smi.txt"
python3 "$D/gemm_kernel_names.py" "$D/beyond_gemms.yaml" "$OUT/h200_gemm_kernels.jsonl" 2>&1 | tee "$OUT/run.log"
echo "rc=$?" | tee -a "$OUT/run.log"

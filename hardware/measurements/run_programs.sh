#!/bin/bash
# Program measurements (c3bench running program files: streams, events and host launch order as
# written, every GPU; hardware/hip/program_bench.h). Run on the lent 2 x H200 from the repository
# root, with c3bench and its two non-CUDA libraries carried in .c3bench_dev/ (see README.md here):
#   bash hardware/measurements/run_programs.sh h200x2
# Writes $OUT/TAG_programs_ag_gemm.jsonl, $OUT/TAG_programs_fsdp.jsonl and TAG_programs_run.log
# (nvidia-smi first, then c3bench's progress). Each program has its own time limit (about 4 min in
# all on 2 x H200); a run stopped by its limit leaves FILE.partial with what it measured.
set -o pipefail
TAG=${1:?tag, e.g. h200x2}
source "$(dirname "$0")/device_env.sh"  # exports, library path, B, T0 and step
P=hardware/measurements/h200x2_programs.yaml
LOG=$OUT/${TAG}_programs_run.log
{ nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
  nvidia-smi topo -m; echo "nccl: $NCCLLIB"; echo "cublas: $CUBLAS"; } >>"$LOG" 2>&1
# The chunked GEMM + all-gather: 6 policies, ~2 ms steps.
step 120 ag_gemm run $P --hardware h200-sxm --only ag_gemm_chunked --trials 10 --warmups 2 \
  -o "$OUT/${TAG}_programs_ag_gemm.jsonl"
# The LLaMA-70B FSDP layer step (forward + backward), ~60 ms steps, 5 policies.
step 200 fsdp run $P --hardware h200-sxm --only llama-70b_fsdp_layer_2gpu --trials 5 --warmups 1 \
  -o "$OUT/${TAG}_programs_fsdp.jsonl"
ls -la "$OUT"

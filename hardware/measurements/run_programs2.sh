#!/bin/bash
# Second program call (more trials, more policies, the generated TP block and MoE layer): c3bench
# running program files on the lent 2 x H200 from the repository root, binary in .c3bench_dev/:
#   PROGRAMS=hardware/measurements/h200x2_programs.yaml bash hardware/measurements/run_programs2.sh h200x2_programs2
# Writes $OUT/TAG_{ag_gemm,fsdp,tp,moe}.jsonl and TAG_run.log.
set -o pipefail
TAG=${1:?tag, e.g. h200x2_programs2}
source "$(dirname "$0")/device_env.sh"  # exports, library path, B, T0 and step
P=${PROGRAMS:-hardware/measurements/h200x2_programs.yaml}
Q=hardware/measurements/h200x2_programs_more.yaml
LOG=$OUT/${TAG}_run.log
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1
step 120 ag_gemm run $P --hardware h200-sxm --only ag_gemm_chunked --trials 30 --warmups 3 \
  --policy base,sp,prio,dma,ficco:2,ficco:4,ficco:8,ficco_dma:2,ficco_dma:4,ficco_dma:8 -o "$OUT/${TAG}_ag_gemm.jsonl"
step 150 fsdp run $P --hardware h200-sxm --only llama-70b_fsdp_layer_2gpu --trials 20 --warmups 3 \
  --policy base,sp,prio,dma,ficco:2,ficco:4 -o "$OUT/${TAG}_fsdp.jsonl"
step 100 tp run $Q --hardware h200-sxm --only llama-70b_tp2_block --trials 20 --warmups 3 \
  --policy base,sp,prio,ficco:2,ficco:4 -o "$OUT/${TAG}_tp.jsonl"
step 100 moe run $Q --hardware h200-sxm --only mixtral-8x7b_moe_layer --trials 20 --warmups 3 \
  --policy base,sp,prio,dma,ficco:2,ficco:4,ficco_dma:4 -o "$OUT/${TAG}_moe.jsonl"
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1

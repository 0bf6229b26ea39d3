#!/bin/bash
# Third program call (issue 15, deliverable 3): the chunked all-gather -> GEMM and the LLaMA-70B
# FSDP layer step (h200x2_programs.yaml) under rp:<n> (CU masks as green contexts, c3sim's layout:
# collective streams from SM 0, GEMM streams the rest; hardware/hip/program_bench.h) for n = 16,
# 32, 64 and under the NCCL zero-CTA copy-engine collective, beside base and dma as references; the
# 2-way TP block and the MoE layer (h200x2_programs_more.yaml) under rp:32 (and zero-CTA for the
# MoE's all-to-alls). Run on the lent 2 x H200 from the repository root, c3bench and its two
# non-CUDA libraries carried in DEV (default .c3bench_dev/):
#   DEV=.c3bench_dev_benchrp bash hardware/measurements/run_programs3.sh h200x2_programs3
# Writes $OUT/TAG_{ag_gemm,fsdp,fsdp_rp,tp,moe}.jsonl and TAG_run.log. The FSDP step's rp runs
# are their own call (its masks combine green-context groups, which the two-stream chain's do not).
set -o pipefail
TAG=${1:?tag, e.g. h200x2_programs3}
HERE=$(dirname "$0")
source "$HERE/device_env.sh"  # exports, library path, B, T0 and step
DEV=${DEV:-.c3bench_dev}
export LD_LIBRARY_PATH=$PWD/$DEV/lib:$LD_LIBRARY_PATH
B=$DEV/c3bench
P=${PROGRAMS:-hardware/measurements/h200x2_programs.yaml}
Q=${PROGRAMS_MORE:-hardware/measurements/h200x2_programs_more.yaml}
LOG=$OUT/${TAG}_run.log
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1
step 60 ag_gemm run $P --hardware h200-sxm --only ag_gemm_chunked --trials 30 --warmups 3 \
  --policy base,rp:16,rp:32,rp:64,sp_rp:32,dma,vendor_zero_cta,vendor_zero_cta_sp -o "$OUT/${TAG}_ag_gemm.jsonl"
step 60 fsdp run $P --hardware h200-sxm --only llama-70b_fsdp_layer_2gpu --trials 15 --warmups 2 \
  --policy base,dma,vendor_zero_cta -o "$OUT/${TAG}_fsdp.jsonl"
step 60 fsdp_rp run $P --hardware h200-sxm --only llama-70b_fsdp_layer_2gpu --trials 15 --warmups 2 \
  --policy base,rp:16,rp:32,rp:64 -o "$OUT/${TAG}_fsdp_rp.jsonl"
step 40 tp run $Q --hardware h200-sxm --only llama-70b_tp2_block --trials 15 --warmups 2 \
  --policy base,rp:32 -o "$OUT/${TAG}_tp.jsonl"
step 40 moe run $Q --hardware h200-sxm --only mixtral-8x7b_moe_layer --trials 15 --warmups 2 \
  --policy base,rp:32,vendor_zero_cta -o "$OUT/${TAG}_moe.jsonl"
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1

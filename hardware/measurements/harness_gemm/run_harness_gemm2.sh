#!/usr/bin/env bash
# Second call (1 x H200, nvidia-h200), same carried folder as run_harness_gemm.sh:
#   bash .c3bench_dev_harness/run_harness_gemm2.sh
# after_gemm_launch.jsonl: the GEMM launch probe (env details.gemm_launch) on gemm_k.yaml's shapes;
# {before,after}_gemm_rest.jsonl: three GEMMs on SM groups of 32/64/96 and beside groups of 32/64
# (the SM-target path, rp's GEMM), then a 1-GPU NCCL all-gather (64 MiB; CTA caps 8, default) and
# the own/zero-CTA DMA on 1 GPU, as a smoke test that collectives run behind the start hold.
set -u
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
D=$PWD/.c3bench_dev_harness
export C3BENCH_DEV=$D
LOG=$OUT/run.log
source "$D/device_env.sh"
B=$D/c3bench
step 200 after_gemm_launch sweep "$D/gemm_k.yaml" --what gemm_launch --trials 50 -o "$OUT/after_gemm_launch.jsonl"
for v in before after; do
  B=$D/c3bench; [[ $v == before ]] && B=$D/c3bench_before
  step 150 ${v}_gemm_rest sweep "$D/gemm_rest.yaml" --what gemm_sms,gemm_sms_rest,coll_ctas,dma_size \
    --sm-limits 32,64,96,132 --cta-limits 8 --sizes 64MiB --ops all_gather --trials 8 --warmups 2 \
    -o "$OUT/${v}_gemm_rest.jsonl"
done

#!/bin/bash
# 2 x H100 SXM: the Table I pairs under every policy, GEMMs alone, copy engines and NCCL, in one
# device call (README.md here). Run on the lent machine from the repository root, with c3bench,
# its two non-CUDA libraries (lib/), device_env.sh and the scenario files carried in one folder:
#   C3BENCH_DEV=$PWD/DIR bash DIR/run_h100x2.sh h100x2
# Writes $OUT/TAG_*.jsonl and TAG_run.log (nvidia-smi's clocks, power limit and topology first,
# then c3bench's progress). Each step has its own time limit; the Table I pairs run first.
# The nvidia-h100-x2 kind may be served by H200s: on any GPU but an H100 it lists the GPUs and exits
# 3 before measuring, unless C3BENCH_ANY_GPU=1 (the same pipeline on another GPU, on purpose).
set -o pipefail
TAG=${1:?tag, e.g. h100x2}
if [[ "${C3BENCH_ANY_GPU:-0}" != 1 ]] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  nvidia-smi -L
  exit 3
fi
DIR=$(cd "$(dirname "$0")" && pwd)
source "$DIR/device_env.sh"  # exports, library path, B, T0 and step
LOG=$OUT/${TAG}_run.log
{ nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit,memory.total \
    --format=csv
  nvidia-smi topo -m; echo "nccl: $NCCLLIB"; echo "cublas: $CUBLAS"; } >>"$LOG" 2>&1
step 200 table1 run "$DIR/h200_table1.yaml" --policy all --trials 3 --warmups 1 --gemm-sm-limits 64 \
  -o "$OUT/${TAG}_table1.jsonl"
step 40 gemm_sms sweep "$DIR/h200_table1.yaml" --what gemm_sms --sm-limits 8,16,32,48,64,80,96,112,124,132 \
  --trials 3 --warmups 1 -o "$OUT/${TAG}_sweep_gemm.jsonl"
step 30 copy_engine sweep --what copy_engine --trials 5 --warmups 1 -o "$OUT/${TAG}_sweep_copy.jsonl"
step 40 dma sweep --what dma_size,dma_latency --sizes 1MiB,4MiB,16MiB,64MiB,256MiB,1GiB,4GiB --trials 5 \
  --warmups 2 -o "$OUT/${TAG}_sweep_dma.jsonl"
step 15 launch sweep --what launch --trials 5 -o "$OUT/${TAG}_sweep_launch.jsonl"
step 40 coll_ctas sweep --what coll_ctas --ops all_gather,all_to_all,reduce_scatter,all_reduce \
  --sizes 64MiB,256MiB,1GiB,2GiB --cta-limits 1,2,4,8,16,32,64 --trials 3 --warmups 1 \
  -o "$OUT/${TAG}_sweep_ctas.jsonl"
step 85 beyond_ag run "$DIR/h200_beyond_ag.yaml" --policy all --trials 3 --warmups 1 \
  -o "$OUT/${TAG}_beyond_ag.jsonl"
ls -la "$OUT" | tee -a "$LOG"

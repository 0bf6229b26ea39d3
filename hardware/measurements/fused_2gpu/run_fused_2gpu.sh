#!/bin/bash
# Fused embedding + all-to-all against the bulk step (lookup kernel, then NCCL's all-to-all) on the
# GPUs of one node (README.md here). Run on the lent machine from the repository root, with
# c3bench, its two non-CUDA libraries (lib/) and device_env.sh carried in one folder:
#   C3BENCH_DEV=$PWD/DIR bash DIR/run_fused_2gpu.sh TAG
# Each size runs as its own c3bench call under its own time limit (a failure loses one size);
# $OUT/TAG.jsonl is the first call's env record followed by every call's fused_step records,
# $OUT/TAG_run.log nvidia-smi's clocks and topology, then c3bench's progress.
set -o pipefail
TAG=${1:?tag, e.g. fused_2gpu}
DIR=$(cd "$(dirname "$0")" && pwd)
source "$DIR/device_env.sh"  # exports, library path, B, T0 and step
LOG=$OUT/${TAG}_run.log
{ nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit,memory.total \
    --format=csv
  nvidia-smi topo -m; echo "nccl: $NCCLLIB"; } >>"$LOG" 2>&1
SIZES="4096x8x128x8 16384x8x128x16 16384x16x256x2 32768x16x128x4 65536x8x128x32"
i=0
for size in $SIZES; do
  step 60 "fused_a2a $size" sweep --what fused_a2a --fused-sizes "$size" --fused-chunks 1,2,4,8,16,64,256 \
    --trials 15 --warmups 2 -o "$OUT/${TAG}_part$i.jsonl"
  i=$((i + 1))
done
first=1
for f in "$OUT/${TAG}"_part*.jsonl; do
  [[ -e "$f" ]] || continue
  if ((first)); then cat "$f"; first=0; else grep -v '"kind":"env"' "$f"; fi
  rm -f "$f"
done >"$OUT/$TAG.jsonl"
rm -f "$OUT/${TAG}"_part*.jsonl.partial
wc -l "$OUT/$TAG.jsonl" | tee -a "$LOG"

#!/bin/bash
# The conditioned trials again with c3bench's fixed GEMM path and a 1 MiB all-reduce through NCCL
# after every idle gap (--condition-warm-collective): without it the h200x2_cond_* files' isolated
# collectives paid a post-idle wake-up that the same collectives beside a GEMM did
# not. Run on the lent machine from the repository root, this script, ../device_env.sh, the
# scenario files and c3bench (with lib/) copied flat into one carried folder (.c3bench_dev_warm/):
#   bash .c3bench_dev_warm/run_warm.sh ab h200x2_warmcoll       # settings A/B + ag, a2a, red
#   bash .c3bench_dev_warm/run_warm.sh more h200x2_warmcoll     # a2a_more, red_more
#   bash .c3bench_dev_warm/run_warm.sh sweep h200x2_warmcoll    # NCCL CTA sweep (run as one step)
# (The files were renamed from h200x2_warm_* after the run.)
# Writes $OUT/TAG_*.jsonl and TAG_run.log.
set -o pipefail
PART=${1:?part: ab, more or sweep}
TAG=${2:?tag}
D=$(cd "$(dirname "$0")" && pwd)
C3BENCH_DEV=$D
source "$D/device_env.sh"
LOG=$OUT/${TAG}_run.log
WARM=--condition-warm-collective
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv >>"$LOG" 2>&1
if [[ $PART == ab ]]; then
  step 60 ab_default run "$D/h200_cond_calib.yaml" --policy base,sp,dma --trials 5 --warmups 1 --no-condition-warm-collective \
    -o "$OUT/part_default.jsonl"
  step 60 ab_warm run "$D/h200_cond_calib.yaml" --policy base,sp,dma --trials 5 --warmups 1 $WARM -o "$OUT/part_warm.jsonl"
  cat "$OUT"/part_default.jsonl "$OUT"/part_warm.jsonl >"$OUT/${TAG}_ab.jsonl" && rm -f "$OUT"/part_*.jsonl
  step 250 beyond_ag run "$D/h200_beyond_ag.yaml" --policy all --trials 5 --warmups 1 $WARM -o "$OUT/${TAG}_beyond_ag.jsonl"
  step 120 beyond_a2a run "$D/h200_beyond_a2a.yaml" --policy all --trials 5 --warmups 1 $WARM -o "$OUT/${TAG}_beyond_a2a.jsonl"
  step 80 beyond_red run "$D/h200_beyond_red.yaml" --trials 5 --warmups 1 $WARM -o "$OUT/${TAG}_beyond_red.jsonl"
elif [[ $PART == sweep ]]; then
  step 240 coll_ctas sweep --what coll_ctas --ops all_gather,all_to_all,reduce_scatter,all_reduce \
    --sizes 16MiB,64MiB,256MiB,1GiB,2GiB --cta-limits 1,2,4,8,16,32,64 --trials 3 --warmups 1 $WARM \
    -o "$OUT/${TAG}_sweep_ctas.jsonl"
else
  step 150 beyond_a2a_more run "$D/h200_beyond_a2a_more.yaml" --policy all --trials 5 --warmups 1 $WARM \
    -o "$OUT/${TAG}_beyond_a2a_more.jsonl"
  step 250 beyond_red_more run "$D/h200_beyond_red_more.yaml" --trials 5 --warmups 1 $WARM \
    -o "$OUT/${TAG}_beyond_red_more.jsonl"
fi
ls -la "$OUT"

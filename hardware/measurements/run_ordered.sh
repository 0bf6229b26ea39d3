#!/bin/bash
# The ordered-launch measurements (c3bench launching each policy's two parts back to back from
# one host thread, as a program does; hardware/hip/trial.h). Run on the lent machine from the repository
# root, with c3bench and its two non-CUDA libraries carried in .c3bench_dev/ (see README.md here):
#   bash hardware/measurements/run_ordered.sh 1 h200x2_ordered   # launch, copy-engine, collective sweeps; beyond-Table-I all-gathers
#   bash hardware/measurements/run_ordered.sh 2 h200x2_ordered   # beyond-Table-I all-to-alls and reductions; Table I again
#   bash hardware/measurements/run_ordered.sh 3 h200x2_ordered   # the other all-to-alls and reductions (a second device call)
# Writes $OUT/TAG_*.jsonl and TAG_run.log (nvidia-smi's clocks and topology first, then c3bench's
# progress; both parts append). Each step has its own time limit, so one slow step
# cannot cost the others; a run stopped by its limit leaves FILE.partial with what it measured.
set -o pipefail
PART=${1:?part 1 or 2}
TAG=${2:?tag, e.g. h200x2_ordered}
source "$(dirname "$0")/device_env.sh"  # exports, library path, B, T0 and step
M=hardware/measurements
LOG=$OUT/${TAG}_run.log
if [[ $PART == 1 ]]; then
  { nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv
    nvidia-smi topo -m; echo "nccl: $NCCLLIB"; echo "cublas: $CUBLAS"; } >>"$LOG" 2>&1
  step 60 launch sweep --what launch --trials 5 -o "$OUT/${TAG}_sweep_launch.jsonl"
  step 110 copy_engine sweep --what copy_engine --trials 5 --warmups 1 -o "$OUT/${TAG}_sweep_copy.jsonl"
  step 120 coll_ctas sweep --what coll_ctas --ops all_gather,all_to_all,reduce_scatter,all_reduce \
    --sizes 16MiB,64MiB,256MiB,1GiB,2GiB --cta-limits 1,2,4,8,16,32,64 --trials 3 --warmups 1 \
    -o "$OUT/${TAG}_sweep_ctas4.jsonl"
  step 280 beyond_ag run $M/h200_beyond_ag.yaml --policy all --trials 5 --warmups 1 -o "$OUT/${TAG}_beyond_ag.jsonl"
elif [[ $PART == 3 ]]; then
  step 200 beyond_a2a_more run $M/h200_beyond_a2a_more.yaml --policy all --trials 5 --warmups 1 \
    -o "$OUT/${TAG}_beyond_a2a_more.jsonl"
  step 250 beyond_red_more run $M/h200_beyond_red_more.yaml --trials 5 --warmups 1 -o "$OUT/${TAG}_beyond_red_more.jsonl"
else
  step 150 beyond_a2a run $M/h200_beyond_a2a.yaml --policy all --trials 5 --warmups 1 -o "$OUT/${TAG}_beyond_a2a.jsonl"
  step 80 beyond_red run $M/h200_beyond_red.yaml --trials 5 --warmups 1 -o "$OUT/${TAG}_beyond_red.jsonl"
  step 300 table1 run $M/h200_table1.yaml --policy all --trials 3 --warmups 1 --gemm-sm-limits 64 \
    -o "$OUT/${TAG}_table1.jsonl"
fi
ls -la "$OUT"

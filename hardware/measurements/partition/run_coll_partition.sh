#!/usr/bin/env bash
# NCCL alone inside an rp:<n> group (a green context of n SMs, capped at n CTAs) against the same
# call unpartitioned under the same cap, paired in the same trial rounds (c3bench sweep --what
# coll_partition). From the repository root with the carried folder .c3bench_dev_part/ (c3bench
# built from this commit's hardware/hip, lib/ with yaml-cpp and fmt):
#   bash hardware/measurements/partition/run_coll_partition.sh TAG     # TAG: h200x2 (nvidia-h200-x2)
# calibrate fits model.collective.<op>_partition_rate from each pair's ratio.
set -u
TAG=${1:-h200x2}
D=$PWD/.c3bench_dev_part
export C3BENCH_DEV=$D
LOG=$OUT/${TAG}_coll_partition_run.log
source hardware/measurements/device_env.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/${TAG}_nvidia_smi.txt"
SIZES=${SIZES:-64MiB,256MiB,512MiB,1GiB,2GiB}
OPS=${OPS:-all_gather,all_to_all,reduce_scatter,all_reduce}
step 500 coll_partition sweep --what coll_partition --ops "$OPS" --sizes "$SIZES" --sm-limits 16,32 \
  --trials 5 --warmups 2 -o "$OUT/${TAG}_coll_partition.jsonl"

#!/bin/bash
# Run on the lent machine as: bash .c3bench_dev/full.sh h200x4 | h200x2 (see README.md here)
# Full measurement on the device: Table I x {AG, A2A} x 4 sizes x all policies, then sweeps.
set -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH=$PWD/.c3bench_dev/lib:/usr/lib/x86_64-linux-gnu:/usr/local/cuda-13.0/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
B=.c3bench_dev/c3bench
TAG=${1:-h200x4}
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/${TAG}_nvidia_smi.txt; nvidia-smi topo -m >> $OUT/${TAG}_nvidia_smi.txt
date +%s > $OUT/t0
timeout 430 $B run hardware/measurements/h200_table1.yaml --policy all --trials 5 --warmups 2 --gemm-sm-limits 64 --coll-cta-limits 16,32 -o $OUT/${TAG}_table1.jsonl 2> $OUT/${TAG}_run.log; echo "run rc=$? after $(( $(date +%s) - $(cat $OUT/t0) )) s"; tail -3 $OUT/${TAG}_run.log
timeout 60 $B sweep --what dma_size,dma_latency --sizes 1MiB,4MiB,16MiB,32MiB,64MiB,256MiB,1GiB,4GiB --trials 5 --warmups 2 -o $OUT/${TAG}_sweep_dma.jsonl 2>> $OUT/${TAG}_run.log; echo "dma sweep rc=$? after $(( $(date +%s) - $(cat $OUT/t0) )) s"
timeout 50 $B sweep --what coll_ctas --sizes 256MiB,1GiB --cta-limits 1,2,4,8,16,24,32,48,64 --trials 5 --warmups 2 -o $OUT/${TAG}_sweep_ctas.jsonl 2>> $OUT/${TAG}_run.log; echo "cta sweep rc=$? after $(( $(date +%s) - $(cat $OUT/t0) )) s"
timeout 50 $B sweep hardware/measurements/h200_table1.yaml --what gemm_sms --sm-limits 8,16,32,48,64,80,96,112,124,132 --trials 3 --warmups 1 -o $OUT/${TAG}_sweep_gemm.jsonl 2>> $OUT/${TAG}_run.log; echo "gemm sweep rc=$? after $(( $(date +%s) - $(cat $OUT/t0) )) s"
tail -2 $OUT/${TAG}_run.log
ls -la $OUT

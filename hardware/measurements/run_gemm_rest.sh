#!/bin/bash
# GEMM in a green-context group vs in the partition left beside a group (rp's GEMM side).
set -o pipefail
export LD_LIBRARY_PATH=$PWD/.c3bench_dev/lib:/usr/lib/x86_64-linux-gnu:/usr/local/cuda-13.0/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
B=.c3bench_dev/c3bench
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/h200_rest_nvidia_smi.txt
timeout 120 $B sweep hardware/measurements/h200_table1.yaml --what gemm_sms_rest --sm-limits 16,32 --trials 5 --warmups 1 -o $OUT/h200_sweep_gemm_rest_a.jsonl 2> $OUT/a.log; echo "a rc=$?"; tail -2 $OUT/a.log
timeout 120 $B sweep hardware/measurements/h200_table1.yaml --what gemm_sms --sm-limits 64,72,80,88,96,104,112,120,128,132 --trials 5 --warmups 1 -o $OUT/h200_sweep_gemm_group.jsonl 2> $OUT/b.log; echo "b rc=$?"; tail -2 $OUT/b.log
timeout 120 $B sweep hardware/measurements/h200_table1.yaml --what gemm_sms_rest --sm-limits 24,40,48,64 --trials 5 --warmups 1 -o $OUT/h200_sweep_gemm_rest_b.jsonl 2> $OUT/c.log; echo "c rc=$?"; tail -2 $OUT/c.log

#!/bin/bash
# Replay imported steps with c3bench under c3sim's policies on the lent 2 x H200, from the
# repository root, with c3bench and its two non-CUDA libraries in DEV/c3bench_dev and the imported
# programs (c3sim import --from torch-profiler STEP/rank0.json --name STEP) in DEV/replay:
#   DEV=build-captures bash hardware/measurements/torch_steps/run_replay.sh $OUT
# Writes $OUT/replay_STEP.jsonl (base, sp, dma), $OUT/replay_STEP_rp.jsonl (rp:32, where the
# program has a collective stream of its own) and $OUT/replay_run.log. Conditioning is short
# (1 ms idle, 0.5 ms spin before each trial): each program times several hundred distinct
# measured kernels alone first, and the default 20 ms + 2 ms would cost minutes per program.
# LIMIT_S and RP_LIMIT_S bound each c3bench call (seconds).
set -o pipefail
out=${1:?output folder}
DEV=${DEV:-build-captures}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NCCLLIB=$(find / -name 'libnccl.so.2' -not -path '/proc/*' 2>/dev/null | head -1)
CUBLAS=$(find / -name 'libcublas.so.13' -not -path '/proc/*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$PWD/$DEV/c3bench_dev/lib:$(dirname "$NCCLLIB"):$(dirname "$CUBLAS"):$LD_LIBRARY_PATH
B=$DEV/c3bench_dev/c3bench
LOG=$out/replay_run.log
T0=$(date +%s)
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1
step() {
  local limit=$1 name=$2
  shift 2
  timeout -k 5 "$limit" "$B" "$@" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
}
common=(--hardware h200-sxm --trials 10 --warmups 2 --condition-idle-ms 1 --condition-spin-ms 0.5)
for s in ${STEPS:-fsdp_w4k moe ddp_b25}; do
  step "${LIMIT_S:-100}" "$s" run "$DEV/replay/$s.yaml" "${common[@]}" --policy base,sp,dma -o "$out/replay_$s.jsonl"
done
for s in ${RP_STEPS:-fsdp_w4k ddp_b25}; do
  step "${RP_LIMIT_S:-80}" "${s}_rp" run "$DEV/replay/$s.yaml" "${common[@]}" --policy rp:32 -o "$out/replay_${s}_rp.jsonl"
done
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1

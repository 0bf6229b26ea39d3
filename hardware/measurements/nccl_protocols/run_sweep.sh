#!/bin/bash
# The device command that measured this folder (every GPU of one host), from the repository root:
#   bash hardware/measurements/nccl_protocols/run_sweep.sh OUTDIR        # each call alone, channel sweep
#   bash hardware/measurements/nccl_protocols/run_sweep.sh OUTDIR loop   # 50 back-to-back calls, <= 16 MiB
# One torchrun per configuration (sweep_protocols.py says what each measures), each under a time
# limit, until BUDGET_S (default 200 s) is spent; writes OUTDIR/<config>.jsonl and the NCCL logs.
set -u
out=${1:?output folder}
mode=${2:-single}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING
t0=$(date +%s)
budget=${BUDGET_S:-200}
ngpu=$(nvidia-smi -L | wc -l)
# config  NCCL_ALGO  NCCL_PROTO  ops  channel-sweep
configs="default - - all 0
ring_simple Ring Simple all 1
ring_ll128 Ring LL128 all 1
ring_ll Ring LL all 1
tree_simple Tree Simple all_reduce 0
tree_ll128 Tree LL128 all_reduce 0
tree_ll Tree LL all_reduce 0"
while read -r name algo proto ops sweep; do
  left=$((budget - ($(date +%s) - t0)))
  if [ $left -lt 20 ]; then echo "$name skipped: ${left} s left" | tee -a "$out/sweep_rc.txt"; continue; fi
  lim=$((left < 60 ? left : 60))
  flags=()
  [ "$ops" != all ] && flags+=(--ops "$ops")
  if [ "$mode" = loop ]; then
    name=loop_$name
    flags+=(--loop 50 --max-bytes 16777216)
  else
    [ "$sweep" = 1 ] && flags+=(--channel-sweep)
  fi
  ts=$(date +%s)
  (
    [ "$algo" != - ] && export NCCL_ALGO=$algo
    [ "$proto" != - ] && export NCCL_PROTO=$proto
    timeout -k 5 $lim torchrun --standalone --nproc_per_node "$ngpu" "$here/sweep_protocols.py" \
      --config "$name" --out "$out" ${flags[@]+"${flags[@]}"} > "$out/${name}.run.log" 2>&1
  )
  rc=$?
  echo "$name rc=$rc in $(($(date +%s) - ts)) s" | tee -a "$out/sweep_rc.txt"
  [ $rc -ne 0 ] && tail -8 "$out/${name}.run.log"
done <<< "$configs"

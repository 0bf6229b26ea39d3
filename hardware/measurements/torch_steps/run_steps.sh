#!/bin/bash
# The device command that captured this folder (2 GPUs), from the repository root:
#   bash hardware/measurements/torch_steps/run_steps.sh $OUT [STEP ...]
# Each step runs in its own torchrun (one failure loses only that step; its log says why), under a
# time limit, until the command's own budget (BUDGET_S, default 500 s) is spent. Everything
# (traces, timings, isolated records, summaries, logs, nvidia-smi) comes back as $OUT/steps.tgz.
set -u
out=${1:?output folder}
shift
steps=${*:-ddp_b25 fsdp_w4k moe sp ddp_b100 fsdp_w8k fsdp_w4k_noreshard tp tp_fp16}
here=$(cd "$(dirname "$0")" && pwd)
raw=/tmp/c3steps
mkdir -p $raw
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
# NCCL's own choice per collective (algorithm, protocol, channels) and its tuning tables, in each
# rank's log (capture_steps.py names it STEP/nccl_rank<r>.log).
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING
t0=$(date +%s)
budget=${BUDGET_S:-500}
nvidia-smi > $raw/nvidia_smi.txt 2>&1
nvidia-smi topo -m > $raw/nvidia_smi_topo.txt 2>&1
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
  --format=csv > $raw/nvidia_smi_clocks_before.csv 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' \
  > $raw/versions.txt 2>&1
ngpu=$(nvidia-smi -L | wc -l)
for s in $steps; do
  left=$((budget - ($(date +%s) - t0)))
  if [ $left -lt 45 ]; then echo "$s skipped: ${left} s left" | tee -a $raw/failures.txt; continue; fi
  lim=$((left < 100 ? left : 100))
  mkdir -p $raw/$s
  ts=$(date +%s)
  timeout -k 10 $lim torchrun --standalone --nproc_per_node $ngpu "$here/capture_steps.py" --step $s --out $raw/$s \
    > $raw/$s/run.log 2>&1
  rc=$?
  echo "$s rc=$rc in $(($(date +%s) - ts)) s" | tee -a $raw/steps_rc.txt
  [ $rc -ne 0 ] && { echo "$s failed rc=$rc" >> $raw/failures.txt; tail -15 $raw/$s/run.log; }
done
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
  --format=csv > $raw/nvidia_smi_clocks_after.csv 2>&1
(cd $raw && tar czf "$out/steps.tgz" .)
ls -la $out
python3 - $raw <<'P'
import json, os, sys
raw = sys.argv[1]
for s in sorted(os.listdir(raw)):
    t, m = os.path.join(raw, s, "timing.json"), os.path.join(raw, s, "summary.json")
    if not os.path.exists(t):
        continue
    med = json.load(open(t))["unprofiled_step_us_median"]
    line = f"{s:20s} median us {[round(x, 1) for x in med]}"
    if os.path.exists(m):
        r0 = json.load(open(m))["per_rank"][0]
        line += f" kernels {r0['trace']['kernels']} sync {r0['trace']['cuda_sync']} nccl {r0['trace']['nccl_kernels']}"
        line += f" trace {os.path.getsize(os.path.join(raw, s, 'rank0.json')) // 1024} KiB"
    print(line)
P

#!/bin/bash
# The device command (2 x H200, nvidia-h200-x2) that wrote every STEP/iso_conditioned.jsonl,
# STEP/events_vs_kernels.json and conditioned/, from the repository root:
#   bash hardware/measurements/torch_steps/run_conditioned.sh $OUT
# (155 s). The nine steps' isolated GEMMs and collectives, read from the committed rank0.json traces,
# then the per-protocol small-size sweep under NCCL_ALGO=Ring NCCL_PROTO=LL|LL128|Simple and NCCL's
# own pick; everything comes back as $OUT/isocond.tgz.
set -u
D=$(cd "$(dirname "$0")" && pwd); O=/tmp/isocond; mkdir -p $O
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING
t0=$(date +%s)
q="--query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv"
nvidia-smi $q > $O/nvidia_smi_clocks_before.csv 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), torch.cuda.get_device_name(0))' > $O/versions.txt 2>&1
timeout -k 10 170 torchrun --standalone --nproc_per_node 2 $D/iso_conditioned.py --out $O --steps-dir $D > $O/steps.log 2>&1
echo "steps rc=$? at $(($(date +%s)-t0)) s" | tee -a $O/rc.txt
for p in LL LL128 Simple default; do
  left=$((250 - ($(date +%s)-t0)))
  [ $left -lt 20 ] && { echo "sweep $p skipped" >> $O/rc.txt; continue; }
  lim=$((left < 50 ? left : 50))
  if [ $p = default ]; then env=(); else env=(NCCL_ALGO=Ring NCCL_PROTO=$p); fi
  env ${env[@]+"${env[@]}"} timeout -k 5 $lim torchrun --standalone --nproc_per_node 2 $D/iso_conditioned.py --out $O --protocol-sweep > $O/sweep_$p.log 2>&1
  echo "sweep $p rc=$? at $(($(date +%s)-t0)) s" | tee -a $O/rc.txt
done
nvidia-smi $q > $O/nvidia_smi_clocks_after.csv 2>&1
tar czf $OUT/isocond.tgz -C $O .

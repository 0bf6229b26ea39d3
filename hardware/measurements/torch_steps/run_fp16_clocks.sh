#!/bin/bash
# The device command (nvidia-h200-x2) that wrote tp_fp16/ (loss-scaled fp16 step) and
# clock_samples/tp/, from the repository root:
#   bash hardware/measurements/torch_steps/run_fp16_clocks.sh $OUT
# 1. tp_fp16 captured as run_steps.sh captures a step (traces, timing, NCCL logs, iso_torch.jsonl);
# 2. its conditioned isolated records (iso_conditioned.py) from the trace just captured;
# 3. tp once more, trace and timing only, with each rank's SM clock and power sampled through NVML
#    (capture_steps.py --clock-samples, clock_sampler.py).
# Everything comes back as $OUT/fp16_clocks.tgz.
set -u
out=${1:?output folder}
D=$(cd "$(dirname "$0")" && pwd); O=/tmp/fp16_clocks; mkdir -p $O/steps $O/isocond $O/clock_samples
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING
t0=$(date +%s)
q="--query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv"
nvidia-smi $q > $O/nvidia_smi_clocks_before.csv 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), torch.cuda.get_device_name(0))' > $O/versions.txt 2>&1
mkdir -p $O/steps/tp_fp16
timeout -k 10 120 torchrun --standalone --nproc_per_node 2 $D/capture_steps.py --step tp_fp16 --out $O/steps/tp_fp16 \
  > $O/steps/tp_fp16/run.log 2>&1
echo "tp_fp16 rc=$? at $(($(date +%s)-t0)) s" | tee -a $O/rc.txt
tail -5 $O/steps/tp_fp16/run.log
timeout -k 10 90 torchrun --standalone --nproc_per_node 2 $D/iso_conditioned.py --out $O/isocond --steps-dir $O/steps \
  --steps tp_fp16 > $O/isocond/steps.log 2>&1
echo "iso_conditioned rc=$? at $(($(date +%s)-t0)) s" | tee -a $O/rc.txt
tail -3 $O/isocond/steps.log
mkdir -p $O/clock_samples/tp
timeout -k 10 60 torchrun --standalone --nproc_per_node 2 $D/capture_steps.py --step tp --no-iso --clock-samples \
  --out $O/clock_samples/tp > $O/clock_samples/tp/run.log 2>&1
echo "tp clocks rc=$? at $(($(date +%s)-t0)) s" | tee -a $O/rc.txt
tail -3 $O/clock_samples/tp/run.log
nvidia-smi $q > $O/nvidia_smi_clocks_after.csv 2>&1
tar czf $out/fp16_clocks.tgz -C $O .
ls -la $out

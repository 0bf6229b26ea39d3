#!/bin/bash
# The device command that captured this folder's traces (nvidia-h200-x2), from the repo root:
#   bash hardware/measurements/torch_traces/run_capture.sh $OUT
# Everything (traces, timings, isolated records, logs) comes back as $OUT/traces.tgz.
set -u
out=${1:?output folder}
raw=/tmp/c3raw
mkdir -p $raw
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
nvidia-smi topo -m > $raw/nvidia_smi_topo.txt 2>&1
python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.device_count())' > $raw/versions.txt 2>&1
here=$(dirname "$0")
for what in fsdp tp iso; do
  torchrun --standalone --nproc_per_node 2 "$here/capture_step.py" --what $what --out $raw \
    > $raw/run_$what.log 2>&1 || echo "$what failed: $?"
  tail -5 $raw/run_$what.log
done
ls -la $raw
(cd $raw && tar czf "$out/traces.tgz" .)
cat $raw/*timing.json

#!/bin/bash
# Predict the committed FSDP and TP steps from their own PyTorch profiler traces (issue 19), from
# the repository root after the README's build:
#   bash hardware/measurements/torch_traces/predict.sh [build/sim/cli/c3sim]
# 1. calibrate the 2 x H200 node file (../h200-sxm-x2.yaml: NCCL's 24 channels there, which the
#    import reads from each collective's kernel grid) on the isolated records of the steps' own
#    kernel shapes (iso_torch.jsonl: every GEMM alone on one GPU, the collectives alone on both);
# 2. import rank 0's trace of each step as a program (GEMMs and collectives modelled, every other
#    kernel at its measured duration);
# 3. run it under base (no policy change), sp and dma: the table shows each prediction beside the
#    trace's measured step (first kernel start to last kernel end).
# tests/cli/torch_import_cli_test.cpp runs the same commands on the FSDP trace and bounds the error.
set -eu
c3sim=${1:-build/sim/cli/c3sim}
here=hardware/measurements/torch_traces
tmp=$(mktemp -d)
$c3sim calibrate $here/iso_torch.jsonl --hardware hardware/measurements/h200-sxm-x2.yaml -o $tmp/h200_torch.yaml
for what in fsdp tp; do
  $c3sim import --from torch-profiler $here/${what}_rank0.json --name ${what}_rank0 -o $tmp/$what.yaml
  for hw in h200-sxm $tmp/h200_torch.yaml; do
    echo "== $what on $hw"
    $c3sim run $tmp/$what.yaml --hardware $hw --policy base,sp,dma --format table | sed -n '1,5p'
  done
done
rm -rf "$tmp"

#!/bin/bash
# The programs of after_kernel.yaml on the lent 2-GPU machine, from the repository root, with
# c3bench and its two non-CUDA libraries (libyaml-cpp, libfmt) in a carried folder:
#   C3BENCH_DEV=$PWD/DIR bash hardware/measurements/after_kernel/run_after_kernel.sh $OUT
# PROGRAMS=after_hold.yaml runs that file instead. Writes $OUT/NAME.jsonl (conditioned trials, as
# Table I's), NAME_unconditioned.jsonl (trials back to back) and NAME_run.log (nvidia-smi before and
# after), NAME the programs file's name without .yaml.
set -o pipefail
out=${1:?output folder}
here=hardware/measurements/after_kernel
programs=${PROGRAMS:-after_kernel.yaml}
name=${programs%.yaml}
source hardware/measurements/device_env.sh
LOG=$out/${name}_run.log
# --hardware only checks the policies against a node; the GPU's own preset
hw=h200-sxm
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && hw=h100-sxm
nvidia-smi --query-gpu=index,name,power.limit,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1
step "${LIMIT_S:-240}" "$name" run "$here/$programs" --hardware "$hw" --policy base --trials 10 --warmups 2 \
  -o "$out/$name.jsonl"
# The same with no conditioning: trials back to back, so nothing idles between them.
step "${LIMIT_S:-240}" "${name}_unconditioned" run "$here/$programs" --hardware "$hw" --policy base \
  --trials 10 --warmups 2 --condition-idle-ms 0 --condition-spin-ms 0 --no-condition-warm-collective \
  -o "$out/${name}_unconditioned.jsonl"
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu,power.draw --format=csv >>"$LOG" 2>&1

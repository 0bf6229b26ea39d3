#!/usr/bin/env bash
# c3sim's bulk and fused steps for every size here at each measured chunk: the program with its
# lookup cut into batch / chunk workgroups (one tile, and fused one message, each), run under
# `base` and `fuse`. Writes OUT/<program>_c<chunk>.{yaml,jsonl} for summarize.py.
#
#     bash predict.sh build/sim/cli/c3sim HARDWARE OUT
set -euo pipefail
c3sim=${1:?usage: predict.sh C3SIM HARDWARE OUT}
hardware=${2:?usage: predict.sh C3SIM HARDWARE OUT}
out=${3:?usage: predict.sh C3SIM HARDWARE OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for file in "$here"/embedding_a2a_*.yaml; do
  name=$(basename "$file" .yaml)
  batch=${name#embedding_a2a_b}
  batch=${batch%%_*}
  for chunk in 1 2 4 8 16 64 256; do
    sed "s/workgroups: [0-9]*/workgroups: $((batch / chunk))/" "$file" >"$out/${name}_c$chunk.yaml"
    "$c3sim" run "$out/${name}_c$chunk.yaml" --hardware "$hardware" --policy base,fuse --no-attribution \
      -o "$out/${name}_c$chunk.jsonl"
  done
done

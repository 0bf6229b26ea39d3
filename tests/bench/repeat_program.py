#!/usr/bin/env python3
"""Writes a program file that runs a program N times back to back: a many-layer training step
from one imported layer or step, for timing `c3sim run` at scale.

Each copy's kernels are renamed <name>_r<copy> and their `after` lists follow; the copies share the
streams, so copy r+1 runs behind copy r in stream order, as the layers of one step do. Fields that
describe the original trace's measured step (measured_step_us, measured_profiler_step_us) are
dropped: they do not describe the repeated program.

    c3sim import hardware/measurements/torch_traces/fsdp_rank0.json -o fsdp.yaml
    python3 tests/bench/repeat_program.py fsdp.yaml 100 > fsdp_x100.yaml
    /usr/bin/time -v c3sim run fsdp_x100.yaml --hardware h200-sxm --policy base --format jsonl -o out.jsonl
"""
import sys

import yaml


class _NoAliases(yaml.SafeDumper):
    """Every repeated value written out in full: program files take no YAML anchors."""

    def ignore_aliases(self, data):
        return True


def repeat(program, copies):
    kernels = program["kernels"]
    out = []
    for r in range(copies):
        for k in kernels:
            c = dict(k)
            c["name"] = f"{k['name']}_r{r}"
            if "after" in k:
                c["after"] = [f"{a}_r{r}" for a in k["after"]]
            out.append(c)
    result = {key: value for key, value in program.items()
              if key not in ("measured_step_us", "measured_profiler_step_us")}
    result["name"] = f"{program['name']}_x{copies}"
    result["kernels"] = out
    return result


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: repeat_program.py PROGRAM.yaml COPIES > OUT.yaml")
    with open(sys.argv[1]) as f:
        doc = yaml.safe_load(f)
    copies = int(sys.argv[2])
    if copies < 1:
        sys.exit("COPIES must be at least 1")
    if "program" in doc:
        doc = {"program": repeat(doc["program"], copies)}
    elif len(doc.get("programs", [])) == 1:
        doc = {"programs": [repeat(doc["programs"][0], copies)]}
    else:
        sys.exit(f"{sys.argv[1]}: give a file of one program (`program:` or a one-entry `programs:`)")
    sys.stdout.write(yaml.dump(doc, Dumper=_NoAliases, sort_keys=False, width=1 << 30))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""DMA-engine what-ifs on an FSDP layer step (issue 17; README "DMA architecture what-ifs").

    python3 examples/dma_architecture_fsdp.py [path/to/c3sim] > fsdp_table.md

Generates the LLaMA-70B FSDP layer step (`c3sim generate fsdp-layer --model llama-70b`: forward +
backward, all-gathers on stream `ag`, gradient reduce-scatters on stream `rs`), then runs it on
the MI300X preset and on one hardware file per variant (`extends: mi300x` plus the variant's
fields, written to a scratch folder), under the CU policies (base, sp, prio) and `dma`. Under
`dma` the all-gathers go to the copy engines, and the reduce-scatters too when the engines can
reduce; the reduce-scatters otherwise stay on the CUs. `c3sim sweep` takes pair scenarios, not
programs, hence this script. Assumed values are those of examples/dma_architecture.yaml; the IOD
fabric rate is the narrower IOD-IOD edge AMD presented at VLSI 2024 (3.0 and 2.4 TB/s; secondary
summary https://vengineer.hatenablog.com/entry/2024/07/10/080000, not verified against the paper),
the engine layout over IODs an assumption (spec.dma.iods in hardware/node_spec.h). hybrid_ar does
not apply: the step reduces gradients with reduce-scatters, not all-reduces.
Standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile

GPU_SIDE = {"model.dma.gpu_initiated": "true", "model.dma.gpu_submit_latency": "1 us",
            "model.dma.prelaunched": "true", "model.dma.gpu_polled_completion": "true",
            "model.dma.gpu_completion_latency": "1 us"}
REDUCE = {"spec.dma.reduce_bandwidth": "64 GB/s"}
# (name, fields): each enhancement alone, then combinations.
VARIANTS = [
    ("host_preset", {}),
    ("gpu_launch", GPU_SIDE),
    ("reduce_32", {"spec.dma.reduce_bandwidth": "32 GB/s"}),
    ("reduce_64", REDUCE),
    ("partition_1_8", {"model.memory.collective_channel_share": "0.125"}),
    ("priority_4", {"model.dma.memory_priority": "4"}),
    ("llc_bypass", {"model.dma.llc_bypass": "true"}),
    ("engines_28", {"spec.dma.engines": "28"}),
    ("iods_4", {"spec.dma.iods": "4", "spec.dma.iod_crossing_bandwidth": "2.4 TB/s"}),
    ("reduce_64_shared_7", dict(REDUCE, **{"spec.dma.engines": "7"})),
    ("reduce_64_partitioned_7", dict(REDUCE, **{"spec.dma.engines": "7", "model.dma.partition_engines": "true"})),
    ("reduce_64_partitioned", dict(REDUCE, **{"model.dma.partition_engines": "true"})),
    ("reduce_64_partitioned_iods_4", dict(REDUCE, **{"model.dma.partition_engines": "true", "spec.dma.iods": "4",
                                                     "spec.dma.iod_crossing_bandwidth": "2.4 TB/s"})),
    ("reduce_64_priority_4", dict(REDUCE, **{"model.dma.memory_priority": "4"})),
    ("combined", dict(GPU_SIDE, **REDUCE, **{"model.dma.memory_priority": "4", "model.dma.llc_bypass": "true",
                                             "model.dma.partition_engines": "true"})),
]
CU_POLICIES = ["base", "sp", "prio"]


def hardware_yaml(name, fields):
    tree = {}
    for key, value in fields.items():
        node = tree
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    lines = ["extends: mi300x", f"name: mi300x_{name}", f"description: MI300X what-if {name}"]

    def emit(node, depth):
        for k, v in node.items():
            if isinstance(v, dict):
                lines.append("  " * depth + f"{k}:")
                emit(v, depth + 1)
            else:
                lines.append("  " * depth + f"{k}: {v}")
    emit(tree, 0)
    return "\n".join(lines) + "\n"


def run(c3sim, program, hardware, policies):
    out = subprocess.run([c3sim, "run", program, "--hardware", hardware, "--policy", ",".join(policies),
                          "--format", "jsonl"], check=True, capture_output=True, text=True).stdout
    steps = {}
    for line in out.splitlines():
        rec = json.loads(line)
        if "step_us" in rec and "policy" in rec:
            steps[rec["policy"]] = rec
    return steps


def compute_idle(rec):
    """Step time minus the compute stream's busy time: where it waits (on collectives, launches)."""
    busy = sum(k["end_us"] - k["start_us"] for k in rec["kernels"] if k["stream"] == "compute")
    return rec["step_us"] - busy


def main():
    c3sim = sys.argv[1] if len(sys.argv) > 1 else "build/sim/cli/c3sim"
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, "fsdp70.yaml")
        subprocess.run([c3sim, "generate", "fsdp-layer", "--model", "llama-70b", "-o", program], check=True,
                       capture_output=True)
        rows = []
        for name, fields in VARIANTS:
            hw = os.path.join(tmp, f"{name}.yaml")
            with open(hw, "w") as f:
                f.write(hardware_yaml(name, fields))
            steps = run(c3sim, program, hw, CU_POLICIES + ["dma"] if name == "host_preset" else ["dma"])
            rows.append((name, steps))
    preset = rows[0][1]
    best_cu = min(CU_POLICIES, key=lambda p: preset[p]["step_us"])
    cu_us = preset[best_cu]["step_us"]
    dma0 = preset["dma"]["step_us"]
    print(f"LLaMA-70B FSDP layer step, MI300X: best CU policy {best_cu} {cu_us:.0f} us "
          f"(base {preset['base']['step_us']:.0f}, sp {preset['sp']['step_us']:.0f}, "
          f"prio {preset['prio']['step_us']:.0f}); ideal {preset['dma']['ideal_us']:.0f} us\n")
    print("| variant | dma step us | preset dma / variant | best CU / variant | compute idle us | overlap % |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, steps in rows:
        r = steps["dma"]
        step = r["step_us"]
        overlap = r.get("overlap_percent")
        overlap_s = f"{overlap:.0f}" if isinstance(overlap, (int, float)) else "-"
        print(f"| {name} | {step:.0f} | {dma0 / step:.3f} | {cu_us / step:.3f} | {compute_idle(r):.0f} | "
              f"{overlap_s} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Turns the FSDP DMA-architecture sweep's output into docs/dma-architecture.md's FSDP table.

    c3sim sweep examples/dma_architecture_fsdp.yaml -o dma_architecture_fsdp.jsonl
    python3 examples/dma_architecture_fsdp_table.py dma_architecture_fsdp.jsonl > fsdp_table.md

Per program of the sweep (the study has one, the LLaMA-70B FSDP layer step) and per variant: the
step under `dma`, the preset's `dma` step over it, the preset's best CU policy (of base, sp, prio)
over it, the compute stream's idle time under `dma` (step minus the compute stream's busy time:
where it waits on collectives and launches), the share of the possible overlap realized, and the
variant's own best CU policy over its `dma` step (the variants that touch memory move the CU
policies too). Reads the sweep's JSONL (its `program` records carry every kernel's times).
Standard library only.
"""
import json
import sys

CU_POLICIES = ["base", "sp", "prio"]


def load(path):
    """steps[program][(variant, policy)] = record; variants in the sweep's order."""
    steps, variants = {}, []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") != "program":
                continue
            v = r["extra"]["variant"]["name"]
            if v not in variants:
                variants.append(v)
            steps.setdefault(r["program"], {})[(v, r["policy"])] = r
    return steps, variants


def compute_idle(rec):
    busy = sum(k["end_us"] - k["start_us"] for k in rec["kernels"] if k["stream"] == "compute")
    return rec["step_us"] - busy


def print_table(program, runs, variants):
    preset = variants[0]
    step = {key: r["step_us"] for key, r in runs.items()}
    best_cu = min(CU_POLICIES, key=lambda p: step[(preset, p)])
    cu_us = step[(preset, best_cu)]
    dma0 = step[(preset, "dma")]
    print(f"{program}, MI300X: best CU policy {best_cu} {cu_us:.0f} us "
          f"(base {step[(preset, 'base')]:.0f}, sp {step[(preset, 'sp')]:.0f}, "
          f"prio {step[(preset, 'prio')]:.0f}); ideal {runs[(preset, 'dma')]['ideal_us']:.0f} us\n")
    print("| variant | dma step us | preset dma / variant | best CU / variant | compute idle us | overlap % "
          "| variant's best CU / dma |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for v in variants:
        r = runs[(v, "dma")]
        overlap = r.get("overlap_percent")
        overlap_s = f"{overlap:.0f}" if isinstance(overlap, (int, float)) else "-"
        own_cu = min(CU_POLICIES, key=lambda p: step[(v, p)])
        print(f"| {v} | {r['step_us']:.0f} | {dma0 / r['step_us']:.3f} | {cu_us / r['step_us']:.3f} | "
              f"{compute_idle(r):.0f} | {overlap_s} | {step[(v, own_cu)] / r['step_us']:.3f} ({own_cu}) |")


def main(path):
    steps, variants = load(path)
    if not steps:
        sys.exit(f"{path}: no program records (run the sweep with -o FILE.jsonl)")
    for i, (program, runs) in enumerate(steps.items()):
        if i:
            print()
        print_table(program, runs, variants)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

#!/usr/bin/env python3
"""Turns the DLRM sweeps' output into docs/dlrm.md's tables, with the seed's figures beside.

    c3sim sweep examples/dlrm_sweep.yaml -o dlrm_mi300x.jsonl
    python3 examples/dlrm_table.py dlrm_mi300x.jsonl [more.jsonl ...]

Per sweep file (one hardware) and program (one batch size or node count), per policy: the forward
embedding + all-to-all time, from the lookup's start to the forward all-to-all's end (every
chunk's, under a chunking policy; the fused kernel's start to end under `fuse`), and the step, each
against base. The kernels are those of the record's rank 0, which holds the largest table (the
generator places it first), so its lookup is the longest and the all-to-all, which ends on every
GPU together, ends there last. Then the seed's figures (workloads/dlrm_seed_values.yaml) beside
c3sim's fused kernel (the best of the `fuse` policies the sweep ran) and its best other policy,
inside a node (programs on one node) and across nodes
(programs on several, named dlrm_..._<nodes>x<gpus>gpu_...): a comparison, never a target.
Standard library only (the seed file is read as the plain subset of YAML it is written in).
"""
import json
import os
import re
import sys

SEED_VALUES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads",
                           "dlrm_seed_values.yaml")
SEED_FIELDS = {"id", "section", "quote", "value", "precision", "note"}


def load_seed_values(path):
    """{id: entry}; the file's `values:` list of flat `key: value` entries, nothing else."""
    values, entry = {}, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            text = line.rstrip("\n")
            if not text.strip() or text.lstrip().startswith("#") or text == "values:":
                continue
            item = text.startswith("  - ")
            key, sep, raw = text[4:].partition(": ")
            if not sep or key not in SEED_FIELDS or (item != (key == "id")) or \
                    (not item and not text.startswith("    ")):
                sys.exit(f"{path}:{n}: not an entry line this reader knows: {text!r}")
            raw = raw.strip()
            value = json.loads(raw) if raw.startswith('"') else float(raw) if key in ("value", "precision") else raw
            if item:
                entry = values.setdefault(value, {"id": value})
            else:
                entry[key] = value
    return values


def load_sweep(path):
    """(hardware, {program: {policy: record}}) in the sweep's order."""
    hardware, programs = None, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "env":
                hardware = r.get("hardware")
            elif r.get("kind") == "program":
                programs.setdefault(r["program"], {})[r["policy"]] = r
    return hardware, programs


def parts(kernel):
    """The program kernels a record's kernel stands for: 'a2a_fwd#1' (a chunk), 'emb_lookup+a2a_fwd'
    (fused)."""
    return kernel["name"].split("#")[0].split("+")


def embedding_all_to_all_us(record):
    kernels = record["kernels"]
    start = min(k["start_us"] for k in kernels if "emb_lookup" in parts(k))
    end = max(k["end_us"] for k in kernels if "a2a_fwd" in parts(k))
    return end - start


def program_nodes(name):
    m = re.search(r"_(\d+)x\d+gpu_", name)
    return int(m.group(1)) if m else 1


def label(record):
    chosen = record.get("extra", {}).get("chosen")
    return f"{record['policy']}={chosen}" if chosen and chosen != record["policy"] else record["policy"]


def change(value, base):
    return "-" if value == base else f"{100 * (value - base) / base:+.1f}%"


def print_program(name, runs):
    base = runs["base"]
    base_ea, base_step = embedding_all_to_all_us(base), base["step_us"]
    print(f"| {name} | policy | emb + a2a us | vs base | step us | vs base |")
    print("| --- | --- | --- | --- | --- | --- |")
    best, fuse = None, None
    for policy, r in runs.items():
        ea = embedding_all_to_all_us(r)
        print(f"| | {label(r)} | {ea:.1f} | {change(ea, base_ea)} | {r['step_us']:.1f} | "
              f"{change(r['step_us'], base_step)} |")
        cut = (100 * (base_ea - ea) / base_ea, label(r), 100 * (base_step - r["step_us"]) / base_step)
        if policy.startswith("fuse"):  # fuse, fuse_memory, fuse_gemm: the fused kernel's best
            if fuse is None or (cut[0], cut[2]) > (fuse[0], fuse[2]):
                fuse = cut
        elif policy != "base" and (best is None or cut[0] > best[0]):
            best = cut
    return {"nodes": program_nodes(name), "best": best, "fuse": fuse}


def print_seed_beside(hardware, results, seed):
    print(f"\nSeed beside ({hardware}; the seed's reductions are its fused kernel's against bulk kernels, "
          "a comparison, not a target):\n")
    print("| figure | seed: fused kernel | c3sim: fused kernel (best fuse*) | c3sim: best other policy |")
    print("| --- | --- | --- | --- |")

    def seed_cell(key):
        v = seed.get(key)
        return "-" if v is None else ("~" if v["precision"] >= 1 else "") + f"{v['value']:g}% shorter"

    def shorter(value):
        return f"{value:.1f}% shorter" if value >= 0 else f"{-value:.1f}% longer"

    def cells(scope, statistic):
        out = []
        for which in ("fuse", "best"):
            cuts = [r[which] for r in results if scope(r["nodes"]) and r[which]]
            if not cuts:
                out.append("- (no such program in this sweep)")
            elif statistic == "mean":
                out.append(f"{shorter(sum(c[0] for c in cuts) / len(cuts))} (mean of {len(cuts)})")
            else:
                top = max(cuts)
                out.append(f"{shorter(top[0])} ({top[1]})")
        return " | ".join(out)

    one, many = (lambda n: n == 1), (lambda n: n > 1)
    print(f"| emb + a2a, inside a node, mean | {seed_cell('intra_node.embedding_all_to_all.mean')} | "
          f"{cells(one, 'mean')} |")
    print(f"| emb + a2a, inside a node, max | {seed_cell('intra_node.embedding_all_to_all.max')} | "
          f"{cells(one, 'max')} |")
    print(f"| emb + a2a, across nodes, mean | {seed_cell('inter_node.embedding_all_to_all.mean')} | "
          f"{cells(many, 'mean')} |")
    print(f"| emb + a2a, across nodes, max | {seed_cell('inter_node.embedding_all_to_all.max')} | "
          f"{cells(many, 'max')} |")
    step = []
    for which in ("fuse", "best"):
        cuts = [r[which] for r in results if r["nodes"] == 128 and r[which]]
        step.append(f"{shorter(cuts[0][2])} ({cuts[0][1]})" if cuts else "- (no 128-node program in this sweep)")
    print(f"| DLRM step, 128 nodes | {seed_cell('128_nodes.dlrm_step.mean')} | {' | '.join(step)} |")


def main(paths):
    seed = load_seed_values(SEED_VALUES)
    for i, path in enumerate(paths):
        hardware, programs = load_sweep(path)
        if not programs:
            sys.exit(f"{path}: no program records (run the sweep with -o FILE.jsonl)")
        if i:
            print()
        print(f"{hardware}:\n")
        results = []
        for j, (name, runs) in enumerate(programs.items()):
            if "base" not in runs:
                sys.exit(f"{path}: program {name} has no base run")
            if j:
                print()
            results.append(print_program(name, runs))
        if any(r["best"] or r["fuse"] for r in results):
            print_seed_beside(hardware, results, seed)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

"""Write the isolated records of one operand kind to calibrate on (c3sim calibrate takes every
iso_gemm record of a shape as the same point, so a file holding both kinds must be split first).

    python3 select_records.py STEP/iso_torch.jsonl OUT.jsonl [step|random]
    python3 select_records.py STEP/iso_conditioned.jsonl OUT.jsonl random TIMING

TIMING keeps only the records of that extra.timing (iso_conditioned.py writes back_to_back,
conditioned, conditioned_busy and conditioned_kernels records of the same calls) and the env record.

Keeps the env and iso_coll records and, per (m, n, k, dtype), the iso_gemm record measured on the
chosen operands ("random": the records with extra.operands "random" or none, as files captured
before step operands existed have); a shape with no record of that kind keeps the other kind's,
counted on stderr.

An iso_coll record that names the channels, algorithm or protocol NCCL ran it with (extra.channels,
extra.algorithm, extra.protocol, from NCCL's log) keeps them there: c3sim calibrate reads them and
fits the per-channel rate at the channels the call ran, as the import names them for the step's
collectives (from the kernel's grid or the log).
"""
import json
import math
import sys


def finite_or_null(x):
    """JSON has no NaN: a statistic of non-finite operands becomes null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite_or_null(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite_or_null(v) for v in x]
    return x


def main():
    src, dst = sys.argv[1], sys.argv[2]
    want = sys.argv[3] if len(sys.argv) > 3 else "step"
    if want not in ("step", "random"):
        sys.exit(f"operands must be step or random, not {want}")
    records = [json.loads(line) for line in open(src) if line.strip()]
    if len(sys.argv) > 4:
        records = [r for r in records if r.get("kind") == "env" or r.get("extra", {}).get("timing") == sys.argv[4]]
    gemms = {}
    keep = []
    for r in records:
        if r.get("kind") != "iso_gemm":
            keep.append(r)
            continue
        kind = r.get("extra", {}).get("operands", "random")
        gemms.setdefault((r["m"], r["n"], r["k"], r["dtype"]), {})[kind] = r
    for r in keep:
        # Files written before the records followed c3sim's reduce-scatter size (the per-GPU output,
        # sim/base/collective_op.h) say "whole tensor" in extra.note: their bytes are the input.
        if r.get("kind") == "iso_coll" and r["op"] == "reduce_scatter" and "whole tensor" in r["extra"].get("note", ""):
            r["bytes"] //= r["gpus"]
    fallback = 0
    for key in sorted(gemms):
        by_kind = gemms[key]
        if want in by_kind:
            keep.append(by_kind[want])
        else:
            fallback += 1
            keep.append(next(iter(by_kind.values())))
    with open(dst, "w") as f:
        for r in keep:
            f.write(json.dumps(finite_or_null(r), sort_keys=True, allow_nan=False) + "\n")
    if fallback:
        print(f"{src}: {fallback} of {len(gemms)} GEMM shapes have no {want}-operand record; kept the other",
              file=sys.stderr)


if __name__ == "__main__":
    main()

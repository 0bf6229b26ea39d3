#!/usr/bin/env python3
"""Tables of README.md from fused_2gpu.jsonl (c3bench sweep --what fused_a2a) and, when given,
c3sim's predicted bulk steps: LABEL=DIR, DIR holding `c3sim run NAME.yaml --hardware H -o DIR/NAME.jsonl`
for each program file here.

    python3 summarize.py fused_2gpu.jsonl [LABEL=DIR ...]
"""
import os
import json
import sys
from collections import defaultdict


def main():
    recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    by = defaultdict(dict)
    for r in recs:
        if r["kind"] != "fused_step":
            continue
        key = (r["batch"], r["tables"], r["dim"], r["pooling"])
        by[key][(r["variant"], r.get("chunk"))] = r
    predicted = []  # (label, {program: step_us})
    for arg in sys.argv[2:]:
        label, folder = arg.split("=", 1)
        steps = {}
        for name in sorted(os.listdir(folder)):
            for line in open(os.path.join(folder, name)):
                j = json.loads(line)
                if j.get("kind") == "program":
                    steps[j["program"]] = j["step_us"]
        predicted.append((label, steps))
    print("| size (batch x tables x dim x pooling) | a2a MiB/GPU | lookup alone (bulk's tile) | all-to-all alone | "
          "bulk | fused, best chunk | fused vs bulk |" + "".join(" c3sim bulk, %s (vs bulk) |" % l for l, _ in predicted))
    print("|---|---|---|---|---|---|---|" + "---|" * len(predicted))
    for key in sorted(by, key=lambda k: by[k][("bulk", None)]["time_us"]):
        v = by[key]
        look = v[("lookup", v[("bulk", None)]["extra"]["lookup_tile"])]["time_us"]
        a2a = v[("all_to_all", None)]["time_us"]
        bulk = v[("bulk", None)]["time_us"]
        fused = min((r for (var, c), r in v.items() if var == "fused"), key=lambda r: r["time_us"])
        name = "embedding_a2a_b%d_t%d_d%d_p%d" % key
        cells = "".join(" %.1f (%+.1f%%) |" % (p[name], 100 * (p[name] / bulk - 1)) for _, p in predicted)
        print("| %dx%dx%dx%d | %d | %.1f | %.1f | %.1f | %.1f (chunk %d) | %+.1f%% |%s" % (
            *key, v[("bulk", None)]["bytes"] >> 20, look, a2a, bulk, fused["time_us"], fused["chunk"],
            100 * (fused["time_us"] / bulk - 1), cells))
    print()
    print("| size | chunk | flags/GPU | lookup alone (tile = chunk) | fused | fused - lookup |")
    print("|---|---|---|---|---|---|")
    for key in sorted(by):
        v = by[key]
        for (var, c), r in sorted(v.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
            if var != "fused":
                continue
            look = v[("lookup", c)]["time_us"]
            print("| %dx%dx%dx%d | %d | %d | %.1f | %.1f | %+.1f |" % (
                *key, c, r["extra"]["flags_per_gpu"], look, r["time_us"], r["time_us"] - look))


main()

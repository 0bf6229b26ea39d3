#!/usr/bin/env python3
"""Tables of README.md from fused_2gpu.jsonl (c3bench sweep --what fused_a2a) and, when given,
c3sim's predictions: LABEL=DIR, DIR written by `bash predict.sh C3SIM HARDWARE DIR` (each program
here at each measured chunk under `base` and `fuse`).

    python3 summarize.py fused_2gpu.jsonl [LABEL=DIR ...]
    python3 summarize.py fused_2gpu.jsonl --fidelity DIR   # docs/fidelity.md's row for DIR

The row: mean |error| and mean error of the bulk step and of the fused step at the measured best
chunk over the five sizes, then "-" (no copy-engine policy), then how often the faster of c3sim's
bulk and fused is the measured faster (within 2%), and the measured cost of that pick.
"""
import os
import json
import re
import sys
from collections import defaultdict


def pct(p, m):
    return 100 * (p / m - 1)


def fidelity(by, folder):
    steps = {}
    for name in os.listdir(folder):
        m = re.fullmatch(r"(.*)_c(\d+)\.jsonl", name)
        if m:
            for line in open(os.path.join(folder, name)):
                j = json.loads(line)
                if j.get("kind") == "program":
                    steps[(m.group(1), int(m.group(2)), j["policy"])] = j["step_us"]
    errors, picks = [], []
    for key, v in by.items():
        name = "embedding_a2a_b%d_t%d_d%d_p%d" % key
        bulk = v[("bulk", None)]["time_us"]
        fused = min((r for (var, c), r in v.items() if var == "fused"), key=lambda r: r["time_us"])
        pb = steps[(name, v[("bulk", None)]["extra"]["lookup_tile"], "base")]
        pf = steps[(name, fused["chunk"], "fuse")]
        errors += [pct(pb, bulk), pct(pf, fused["time_us"])]
        pick = fused["time_us"] if pf < pb else bulk
        picks.append(pick / min(bulk, fused["time_us"]) - 1)
    def short(x, digits):  # as docs/fidelity.sh's jq rounds: 75%, 0.62%, -4.2%
        return ("%.*f" % (digits, x)).rstrip("0").rstrip(".")
    print("%s%% | %s%% | - | %s%% | %s%%" % (
        short(sum(abs(e) for e in errors) / len(errors), 1), short(sum(errors) / len(errors), 1),
        short(100 * sum(1 for p in picks if p <= 0.02) / len(picks), 1), short(100 * sum(picks) / len(picks), 2)))


def main():
    recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    by = defaultdict(dict)
    for r in recs:
        if r["kind"] != "fused_step":
            continue
        key = (r["batch"], r["tables"], r["dim"], r["pooling"])
        by[key][(r["variant"], r.get("chunk"))] = r
    if sys.argv[2:3] == ["--fidelity"]:
        fidelity(by, sys.argv[3])
        return
    predicted = []  # (label, {(program, chunk, policy): step_us}, {(program, chunk, kernel): alone_us})
    for arg in sys.argv[2:]:
        label, folder = arg.split("=", 1)
        steps, alone = {}, {}
        for name in sorted(os.listdir(folder)):
            m = re.fullmatch(r"(.*)_c(\d+)\.jsonl", name)
            if not m:
                continue
            for line in open(os.path.join(folder, name)):
                j = json.loads(line)
                if j.get("kind") != "program":
                    continue
                steps[(m.group(1), int(m.group(2)), j["policy"])] = j["step_us"]
                for k in j["kernels"]:
                    alone[(m.group(1), int(m.group(2)), k["name"])] = k["iso_us"]
        predicted.append((label, steps, alone))
    order = sorted(by, key=lambda k: by[k][("bulk", None)]["time_us"])
    print("| size (batch x tables x dim x pooling) | a2a MiB/GPU | bulk | fused, best chunk | fused vs bulk |"
          + "".join(" c3sim bulk, %s (error) | c3sim fused at that chunk, %s (error) |" % (l, l) for l, _, _ in predicted))
    print("|---|---|---|---|---|" + "---|---|" * len(predicted))
    for key in order:
        v = by[key]
        bulk = v[("bulk", None)]["time_us"]
        tile = v[("bulk", None)]["extra"]["lookup_tile"]
        fused = min((r for (var, c), r in v.items() if var == "fused"), key=lambda r: r["time_us"])
        name = "embedding_a2a_b%d_t%d_d%d_p%d" % key
        cells = ""
        for _, s, _ in predicted:
            pb = s[(name, tile, "base")]
            pf = s[(name, fused["chunk"], "fuse")]
            cells += " %.1f (%+.1f%%) | %.1f (%+.1f%%) |" % (pb, pct(pb, bulk), pf, pct(pf, fused["time_us"]))
        print("| %dx%dx%dx%d | %d | %.1f | %.1f (chunk %d) | %+.1f%% |%s" % (
            *key, v[("bulk", None)]["bytes"] >> 20, bulk, fused["time_us"], fused["chunk"],
            pct(fused["time_us"], bulk), cells))
    if predicted:
        print()
        print("| size | lookup alone (tile %s) | all-to-all alone |" % "4"
              + "".join(" c3sim lookup, %s | c3sim all-to-all, %s | c3sim fused at chunk 4, %s (measured) | c3sim best chunk, %s |"
                        % (l, l, l, l) for l, _, _ in predicted))
        print("|---|---|---|" + "---|---|---|---|" * len(predicted))
        for key in order:
            v = by[key]
            tile = v[("bulk", None)]["extra"]["lookup_tile"]
            look = v[("lookup", tile)]["time_us"]
            a2a = v[("all_to_all", None)]["time_us"]
            name = "embedding_a2a_b%d_t%d_d%d_p%d" % key
            cells = ""
            for _, s, a in predicted:
                pl, pa = a[(name, tile, "lookup")], a[(name, tile, "a2a")]
                chunks = sorted(c for (n, c, pol) in s if n == name and pol == "fuse")
                best = min(chunks, key=lambda c: s[(name, c, "fuse")])
                cells += " %.1f (%+.1f%%) | %.1f (%+.1f%%) | %.1f (%.1f) | %.1f (chunk %d) |" % (
                    pl, pct(pl, look), pa, pct(pa, a2a), s[(name, 4, "fuse")], v[("fused", 4)]["time_us"],
                    s[(name, best, "fuse")], best)
            print("| %dx%dx%dx%d | %.1f | %.1f |%s" % (*key, look, a2a, cells))
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

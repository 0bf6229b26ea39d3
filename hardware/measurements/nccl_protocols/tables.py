"""The README's tables from this folder's <config>.jsonl files (sweep_protocols.py's records).

    python3 hardware/measurements/nccl_protocols/tables.py [DIR] [--loop]

--loop reads the loop_<config>.jsonl files (50 back-to-back calls per timing: latency) instead of
the single-call ones.

Prints markdown: per op, the time and bus bandwidth of every forced (algorithm, protocol) and of
NCCL's default pick per size; per (op, algorithm, protocol), the latency (time at 4 KiB) and the
bus bandwidth at 512 MiB and from the difference of the two largest sizes; the channel sweep (bus bandwidth per channel count, and per channel).
"""
import glob
import json
import os
import sys

CONFIGS = ["ring_ll", "ring_ll128", "ring_simple", "tree_ll", "tree_ll128", "tree_simple"]
LABEL = {"ring_ll": "Ring LL", "ring_ll128": "Ring LL128", "ring_simple": "Ring Simple", "tree_ll": "Tree LL",
         "tree_ll128": "Tree LL128", "tree_simple": "Tree Simple", "default": "default"}


def size_label(b):
    if b >= 2**20:
        return f"{b // 2**20} MiB"
    return f"{b // 2**10} KiB"


def load(folder, loop):
    recs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        config = os.path.basename(path)[:-6]
        if config.startswith("loop_") != loop:
            continue
        config = config[len("loop_"):] if loop else config
        for line in open(path):
            r = json.loads(line)
            if r.get("kind") == "iso_coll":
                recs.setdefault(config, []).append(r)
    return recs


def main():
    args = [a for a in sys.argv[1:] if a != "--loop"]
    folder = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    recs = load(folder, "--loop" in sys.argv)
    plain = {c: {(r["op"], r["bytes"]): r for r in rs if "channels" not in r["extra"].get("forced", {})}
             for c, rs in recs.items()}
    ops = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
    for op in ops:
        configs = [c for c in CONFIGS if any(k[0] == op for k in plain.get(c, {}))]
        sizes = sorted({k[1] for c in plain.values() for k in c if k[0] == op})
        if not sizes:
            continue
        print(f"\n{op}: time us (bus bandwidth GB/s)\n")
        print("| size | " + " | ".join(LABEL[c] for c in configs) + " | default: time (busbw) | NCCL's pick |")
        print("|---" * (len(configs) + 3) + "|")
        for b in sizes:
            cells = []
            for c in configs:
                r = plain.get(c, {}).get((op, b))
                cells.append(f"{r['time_us']:.1f} ({r['extra']['busbw_GBps']:.0f})" if r else "")
            d = plain.get("default", {}).get((op, b))
            pick = ""
            if d:
                e = d["extra"]
                pick = f"{e['algorithm']} {e['protocol']} {e['channels']}ch" if e.get("protocol") else "(no log line)"
            dcell = f"{d['time_us']:.1f} ({d['extra']['busbw_GBps']:.0f})" if d else ""
            print(f"| {size_label(b)} | " + " | ".join(cells) + f" | {dcell} | {pick} |")
    largest = max((b for rs in plain.values() for (_, b) in rs), default=0)
    print(f"\nLatency (time at 4 KiB) and bus bandwidth at {size_label(largest)}, per op and forced "
          "algorithm/protocol; channels as logged\n")
    print(f"| op | algorithm, protocol | time at 4 KiB (us) | busbw at {size_label(largest)} (GB/s) | "
          "busbw from the two largest sizes' difference (GB/s) | channels (logged) |")
    print("|---|---|---|---|---|---|")
    for op in ops:
        for c in CONFIGS + ["default"]:
            small = plain.get(c, {}).get((op, 4096))
            large = plain.get(c, {}).get((op, largest))
            if not small and not large:
                continue
            ch = sorted({r["extra"].get("channels") for k, r in plain.get(c, {}).items() if k[0] == op} - {None})
            print(f"| {op} | {LABEL[c]} | {small['time_us']:.1f} |" if small else f"| {op} | {LABEL[c]} | |", end="")
            print(f" {large['extra']['busbw_GBps']:.1f} |" if large else " |", end="")
            below = plain.get(c, {}).get((op, largest // 2))
            if large and below and large["time_us"] > below["time_us"]:
                # A fixed per-call cost (launch, the other rank's arrival) cancels in the difference.
                bw = (large["bytes"] - below["bytes"]) / (large["time_us"] - below["time_us"]) / 1e3
                bw *= large["extra"]["busbw_GBps"] / (large["bytes"] / large["time_us"] / 1e3)
                print(f" {bw:.1f} |", end="")
            else:
                print(" |", end="")
            print(f" {', '.join(map(str, ch))} |")
    sweep = [r for rs in recs.values() for r in rs if "channels" in r["extra"].get("forced", {})]
    if sweep:
        print("\nChannel sweep: bus bandwidth GB/s (time us) per forced channel count; "
              "logged channels where they differ\n")
        counts = sorted({r["extra"]["forced"]["channels"] for r in sweep})
        print("| protocol | op | size | " + " | ".join(f"{c} ch" for c in counts) +
              " | busbw per channel at 1 ch (GB/s) |")
        print("|---" * (len(counts) + 4) + "|")
        keys = sorted({(r["extra"]["config"], r["op"], r["bytes"]) for r in sweep})
        for config, op, b in keys:
            cells, one = [], None
            for c in counts:
                r = next((r for r in sweep if (r["extra"]["config"], r["op"], r["bytes"]) == (config, op, b)
                          and r["extra"]["forced"]["channels"] == c), None)
                if r is None:
                    cells.append("")
                    continue
                logged = r["extra"].get("channels")
                note = f" [{logged}]" if logged not in (None, c) else ""
                cells.append(f"{r['extra']['busbw_GBps']:.1f} ({r['time_us']:.0f}){note}")
                if c == 1:
                    one = r["extra"]["busbw_GBps"]
            print(f"| {LABEL.get(config, config)} | {op} | {size_label(b)} | " + " | ".join(cells) +
                  f" | {one:.1f} |" if one is not None else " | |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares two c3sim outputs (JSON or JSON Lines) number by number.

Every number must agree within a relative tolerance (default 1e-9), every other value exactly,
and both files must have the same structure. Used to check that an engine change keeps every
scenario's times: run `c3sim paper --format json` or `c3sim run ... --format jsonl` before and
after, then `compare_numbers.py before.json after.json`. Exit 0: same; 1: differences (listed).
"""
import argparse
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def compare(a, b, where, rel, out):
    if isinstance(a, bool) or isinstance(b, bool) or not (
        isinstance(a, (int, float)) and isinstance(b, (int, float))
    ):
        if type(a) is not type(b):
            out.append(f"{where}: type {type(a).__name__} vs {type(b).__name__}")
        elif isinstance(a, dict):
            for k in sorted(set(a) | set(b)):
                if k not in a or k not in b:
                    out.append(f"{where}.{k}: only in {'after' if k not in a else 'before'}")
                else:
                    compare(a[k], b[k], f"{where}.{k}", rel, out)
        elif isinstance(a, list):
            if len(a) != len(b):
                out.append(f"{where}: {len(a)} vs {len(b)} items")
            for i, (x, y) in enumerate(zip(a, b)):
                compare(x, y, f"{where}[{i}]", rel, out)
        elif a != b:
            out.append(f"{where}: {a!r} vs {b!r}")
        return
    scale = max(abs(a), abs(b))
    if abs(a - b) > rel * scale:
        out.append(f"{where}: {a!r} vs {b!r} (relative {abs(a - b) / scale:.3g})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--rel", type=float, default=1e-9, help="relative tolerance (default 1e-9)")
    args = p.parse_args()
    diffs = []
    compare(load(args.before), load(args.after), "$", args.rel, diffs)
    for d in diffs[:50]:
        print(d)
    if len(diffs) > 50:
        print(f"... and {len(diffs) - 50} more")
    print(f"{len(diffs)} difference(s) beyond relative {args.rel}", file=sys.stderr)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Can a loaded-latency gather explain the fused kernel's speed at pooling 32? (README, "Occupancy at
pooling 32".)

Little's law with a latency that rises toward saturation: a lookup moving R bytes per second with C
bytes in flight over the GPU waits L(R) per round trip, R = C / L(R), where
  M/M/1: L = L0 / (1 - R / Rmax)        M/D/1: L = L0 * (1 + rho / (2 (1 - rho))), rho = R / Rmax.
C = resident threads x the bytes a thread moves per dependent round trip of its item. A thread sums
one 16-byte vector of an item: (pooling + 1) vectors read and written per item, over the round trips
its compiled loop makes (sass_loads.py shows them): the index load, then per unrolled iteration of 4
rows one round trip when the 4 row loads are in flight together (the fused kernel) or two when the
third waits for the first (the plain lookup), then the remainder (pooling % 4: one for its first
row, one for the rest).

Fitted (t0, L0, Rmax: relative least squares) to the lookups alone only, those whose grid keeps every
SM busy (>= 256 blocks); then the fused kernel, 5 blocks of 256 per SM, is predicted under two
premises: the same round trips per item as the plain lookup (occupancy alone), or its own compiled
loop's. Usage: python3 gather_queueing.py fused_2gpu.jsonl
"""
import json
import sys

THREADS_PER_BLOCK = 256
VECTOR_BYTES = 16
DATASHEET_HBM = 4.8e12  # H200 HBM3e, bytes/s
FLAG_COST_S = 0.33e-6 / 132  # model.fused.message_overhead per SM: a flag's share of the step
MIN_BLOCKS = 256


def round_trips(pooling, rows_in_flight):
    iterations, remainder = divmod(pooling, 4)
    per_iteration = 1 if rows_in_flight == 4 else 2
    return 1 + per_iteration * iterations + (remainder >= 1) + (remainder >= 2)


def bytes_per_round_trip(pooling, rows_in_flight):
    return VECTOR_BYTES * (pooling + 1) / round_trips(pooling, rows_in_flight)


def latency(rate, l0, rmax, shape):
    rho = rate / rmax
    return l0 / (1 - rho) if shape == "M/M/1" else l0 * (1 + rho / (2 * (1 - rho)))


def rate(in_flight, l0, rmax, shape):
    lo, hi = 0.0, rmax * (1 - 1e-12)
    for _ in range(80):
        mid = (lo + hi) / 2
        if in_flight / latency(mid, l0, rmax, shape) > mid:
            lo = mid
        else:
            hi = mid
    return lo


def kernel_time_us(rec, per_thread, params, shape):
    """Persistent blocks over the tiles: full rounds with every block, then the remainder's."""
    t0, l0, rmax = params
    blocks, tiles = rec["blocks"], rec["tiles"]
    tile_bytes = rec["bytes"] / tiles
    full, rest = divmod(tiles, blocks)
    t = full * tile_bytes * blocks / rate(blocks * THREADS_PER_BLOCK * per_thread, l0, rmax, shape)
    if rest:
        t += tile_bytes * rest / rate(rest * THREADS_PER_BLOCK * per_thread, l0, rmax, shape)
    return t0 + t * 1e6


def nelder_mead(f, x0, steps, iterations=400):
    pts = [list(x0)] + [[x + (s if i == j else 0) for j, x in enumerate(x0)] for i, s in enumerate(steps)]
    vals = [f(p) for p in pts]
    for _ in range(iterations):
        order = sorted(range(len(pts)), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        centre = [sum(p[j] for p in pts[:-1]) / (len(pts) - 1) for j in range(len(x0))]
        worst = pts[-1]
        reflected = [c + (c - w) for c, w in zip(centre, worst)]
        fr = f(reflected)
        if fr < vals[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centre, worst)]
            fe = f(expanded)
            pts[-1], vals[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centre, worst)]
            fc = f(contracted)
            if fc < vals[-1]:
                pts[-1], vals[-1] = contracted, fc
            else:
                pts = [pts[0]] + [[b + 0.5 * (x - b) for b, x in zip(pts[0], p)] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    best = min(range(len(pts)), key=lambda i: vals[i])
    return pts[best]


def load(path):
    out = []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        if r.get("kind") != "fused_step" or r["variant"] not in ("lookup", "fused"):
            continue
        b, t, d, p, chunk = r["batch"], r["tables"], r["dim"], r["pooling"], r["chunk"]
        out.append({
            "size": f"{b}x{t}x{d}x{p}", "variant": r["variant"], "chunk": chunk, "pooling": p,
            "blocks": r["extra"]["blocks"], "time_us": r["time_us"],
            "bytes": b * t * (p + 1) * d * 4, "tiles": 2 * -(-(b // 2) // chunk),
            "flags": r["extra"].get("flags_per_gpu", 0),
        })
    return out


def main():
    recs = load(sys.argv[1])
    lookups = [r for r in recs if r["variant"] == "lookup" and r["blocks"] >= MIN_BLOCKS]
    lookup_at = {(r["size"], r["chunk"]): r for r in recs if r["variant"] == "lookup"}
    hidden = [r for r in recs if r["variant"] == "fused" and r["pooling"] >= 16 and r["chunk"] in (4, 8, 16)]
    print(f"Fitted to {len(lookups)} lookups alone (>= {MIN_BLOCKS} blocks). Fused: the kernel's change "
          "against the lookup alone at the same chunk, measured less the flags' cost.\n")
    head = "| premise | L(R) | Rmax | t0 us | L0 us | Rmax TB/s | lookups rms / max | " + " | ".join(
        f"{r['size']} ch{r['chunk']}" for r in hidden) + " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    meas = []
    for r in hidden:
        base = lookup_at[(r["size"], r["chunk"])]["time_us"]
        meas.append(100 * (r["time_us"] - r["flags"] * FLAG_COST_S * 1e6 - base) / base)
    print("| measured | | | | | | | " + " | ".join(f"{m:+.1f}%" for m in meas) + " |")
    best = None
    for shape in ("M/M/1", "M/D/1"):
        for cap in (None, DATASHEET_HBM):
            def err(params, shape=shape, cap=cap):
                p = (params[0], params[1], cap if cap else params[2])
                if p[1] <= 0 or p[2] <= 1e12:
                    return 1e9
                return sum(((kernel_time_us(r, bytes_per_round_trip(r["pooling"], 2), p, shape) - r["time_us"])
                            / r["time_us"]) ** 2 for r in lookups)
            x = nelder_mead(err, [14.0, 0.3e-6, 5.5e12], [2.0, 0.1e-6, 0.5e12])
            params = (x[0], x[1], cap if cap else x[2])
            errs = [100 * (kernel_time_us(r, bytes_per_round_trip(r["pooling"], 2), params, shape) - r["time_us"])
                    / r["time_us"] for r in lookups]
            rms = (sum(e * e for e in errs) / len(errs)) ** 0.5
            if best is None or rms < best[0]:
                best = (rms, shape, params)
            for premise, rows in (("occupancy alone", 2), ("compiled loop", 4)):
                cells = []
                for r in hidden:
                    lk = dict(r, blocks=lookup_at[(r["size"], r["chunk"])]["blocks"])
                    plain = kernel_time_us(lk, bytes_per_round_trip(r["pooling"], 2), params, shape)
                    fused = kernel_time_us(r, bytes_per_round_trip(r["pooling"], rows), params, shape)
                    cells.append(f"{100 * (fused - plain) / plain:+.1f}%")
                print(f"| {premise} | {shape} | {'datasheet' if cap else 'fitted'} | {params[0]:.1f} | "
                      f"{params[1] * 1e6:.3f} | {params[2] / 1e12:.2f} | {rms:.1f}% / {max(map(abs, errs)):.1f}% | "
                      + " | ".join(cells) + " |")
    _, shape, params = best
    print(f"\nSame grid (<= 256 blocks: <= 2 per SM whatever the occupancy), fused step against lookup alone, "
          f"and the kernels' change under the compiled loops ({shape}, fitted):\n")
    print("| size | chunk | blocks | fused | lookup alone | measured | compiled loop |\n|---|---|---|---|---|---|---|")
    for r in recs:
        lk = lookup_at.get((r["size"], r["chunk"]))
        if r["variant"] == "fused" and lk and lk["blocks"] == r["blocks"] and r["blocks"] <= 256:
            plain = kernel_time_us(lk, bytes_per_round_trip(r["pooling"], 2), params, shape)
            fused = kernel_time_us(r, bytes_per_round_trip(r["pooling"], 4), params, shape)
            print(f"| {r['size']} | {r['chunk']} | {r['blocks']} | {r['time_us']:.1f} | {lk['time_us']:.1f} | "
                  f"{100 * (r['time_us'] - lk['time_us']) / lk['time_us']:+.1f}% | {100 * (fused - plain) / plain:+.1f}% |")


if __name__ == "__main__":
    main()

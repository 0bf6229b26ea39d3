"""A GEMM's rate under the power limit against the share of time it runs: the averaged-draw law's
test (README, "Each GEMM alone at the power limit").

    python3 hardware/measurements/torch_steps/gemm_duty.py --out DIR

One GPU (cuda:0). Per GEMM (tp's 8192 x 8192 x 14336 and DDP's 4096 x 4096 x 11008, bf16, random
operands) and per filler (`idle`: torch.cuda._sleep on one block, the board idle but clocked up;
`hbm`: an elementwise add streaming HBM on every SM), a loop of GEMM then filler for --sustain-s
after --rest-ms of rest, the filler sized to a duty (GEMM time over GEMM + filler time) of 1.0,
0.75, 0.5 or 0.25 at the rested rate. Events around every kernel give each one's time; NVML is
sampled as in gemm_power.py. Per case: the measured duty over the last half, the GEMM's median
time there against its first-20 ms time, the filler's, the power and clock there; and the first
300 ms of raw NVML samples (host ms from the first event, SM MHz, averaged W, instant W) for the
ramp.

Writes DIR/gemm_duty.jsonl (an "env" line first).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gemm_power import Board, window  # noqa: E402

GEMMS = {"tp_8192x8192x14336": (8192, 14336, 8192), "ddp_4096x4096x11008": (4096, 4096, 11008)}
DUTIES = [1.0, 0.75, 0.5, 0.25]


def timed_once(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) * 1e3


def run_case(gemm, filler, duty, board, args):
    g_us = statistics.median(timed_once(gemm) for _ in range(5))
    f_us_target = g_us * (1 - duty) / duty
    f_one = statistics.median(timed_once(filler["fn"]) for _ in range(3))
    reps = 0 if duty >= 1 else max(1, round(f_us_target / f_one))
    periods = max(20, int(args.sustain_s * 1e6 / (g_us + reps * f_one)))
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2 * periods + 1)]
    torch.cuda.synchronize()
    board.start()
    time.sleep(args.rest_ms / 1e3)
    t0 = time.perf_counter_ns()
    ev[0].record()
    for i in range(periods):
        gemm()
        ev[2 * i + 1].record()
        for _ in range(reps):
            filler["fn"]()
        ev[2 * i + 2].record()
    torch.cuda.synchronize()
    samples = board.finish()
    g = [ev[2 * i].elapsed_time(ev[2 * i + 1]) * 1e3 for i in range(periods)]
    f = [ev[2 * i + 1].elapsed_time(ev[2 * i + 2]) * 1e3 for i in range(periods)]
    ends, acc = [], 0.0
    for a, b in zip(g, f):
        acc += a + b
        ends.append(acc)
    total = ends[-1]
    first = [a for a, e in zip(g, ends) if e <= 20e3] or g[:1]
    half = [i for i, e in enumerate(ends) if e > total / 2]
    gh, fh = [g[i] for i in half], [f[i] for i in half]
    raw = [[round((s[0] - t0) / 1e6, 2), s[1], s[2] / 1e3, (s[3] or 0) / 1e3] for s in samples
           if 0 <= s[0] - t0 <= 300e6]
    return {"kind": "duty", "filler": filler["name"], "duty_target": duty, "filler_reps": reps,
            "periods": periods, "span_ms": total / 1e3, "gemm_first_us": statistics.median(first),
            "gemm_steady_us": statistics.median(gh), "filler_steady_us": statistics.median(fh),
            "duty": sum(gh) / (sum(gh) + sum(fh)),
            "steady": window(samples, t0 + int(total / 2 * 1e3), t0 + int(total * 1e3)), "ramp": raw}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rest-ms", type=float, default=400.0)
    ap.add_argument("--sustain-s", type=float, default=1.5)
    args = ap.parse_args()
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    board = Board(0)
    os.makedirs(args.out, exist_ok=True)
    big = torch.ones(1 << 26, device=device, dtype=torch.float32)  # 256 MiB: ~0.13 ms per add at HBM rate
    fillers = [{"name": "idle", "fn": lambda: torch.cuda._sleep(50_000)},  # ~25 us at 1980 MHz
               {"name": "hbm", "fn": lambda: big.add_(1.0)}]
    rows = [{"kind": "env", "device": torch.cuda.get_device_properties(device).name, "torch": torch.__version__,
             "board": board.static(), "rest_ms": args.rest_ms, "sustain_s": args.sustain_s,
             "command": " ".join(sys.argv)}]
    t_start = time.time()
    for name, (m, n, k) in GEMMS.items():
        a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
        gemm = lambda: torch.mm(a, b)  # noqa: E731
        for _ in range(3):
            gemm()
        for filler in fillers:
            for duty in DUTIES:
                if duty >= 1 and filler["name"] != "idle":
                    continue
                row = run_case(gemm, filler, duty, board, args)
                row.update({"gemm": name, "m": m, "n": n, "k": k, "flop": 2 * m * n * k})
                rows.append(row)
                s = row["steady"] or {}
                print(f"{name} {filler['name']} duty {row['duty']:.2f}: GEMM {row['gemm_first_us']:.0f} -> "
                      f"{row['gemm_steady_us']:.0f} us ({row['gemm_steady_us'] / row['gemm_first_us']:.3f}), filler "
                      f"{row['filler_steady_us']:.0f} us, {s.get('instant_w', 0):.0f} W, {s.get('clock_mhz')} MHz",
                      file=sys.stderr)
        del a, b
    with open(os.path.join(args.out, "gemm_duty.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} rows in {time.time() - t_start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

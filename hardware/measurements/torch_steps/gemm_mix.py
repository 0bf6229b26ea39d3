"""Held-out check of the power law: loops of GEMMs of other shapes, HBM streams and idle gaps, each
run back to back until the board settles, against c3sim's steady-state prediction of the same loop
(gemm_mix_check.py). Nothing here was used to set a parameter.

    python3 hardware/measurements/torch_steps/gemm_mix.py --out DIR

One GPU (cuda:0). Per loop (LOOPS below): each kernel timed alone after 50 ms of rest (median of 5,
after 3 warm-ups: `alone_us`, which carries the wake-up of a short kernel after idle), then the
loop back to back for --sustain-s after --rest-ms of rest, an event after every kernel; per kernel
the median over the loop's first 30 ms, its first iteration left out (`first_us`: the full clock,
before the averaged draw can reach the limit), and over the last half (`steady_us`). Kernels: `gemm MxNxK`
(bf16, random operands), `hbm BYTES` (an elementwise add over a float32 buffer of BYTES / 2 read
and written: BYTES moved), `idle US` (torch.cuda._sleep on one block for about US at 1980 MHz).

Writes DIR/gemm_mix.jsonl: an "env" line, then one line per loop with its kernels' times and the
board's power and clock over the last half.
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

LOOPS = {
    "mlp_bwd": ["gemm 8192x4096x4096", "gemm 4096x4096x8192", "hbm 268435456", "gemm 8192x11008x4096",
                "hbm 536870912", "idle 300"],
    "attn_like": ["gemm 16384x4096x4096", "hbm 1073741824", "gemm 4096x16384x4096", "idle 1500"],
    "sparse": ["gemm 8192x8192x8192", "idle 4000"],
    "dense_mixed": ["gemm 12288x4096x12288", "gemm 4096x4096x16384", "hbm 134217728", "gemm 2048x8192x8192"],
}


def make_kernel(spec, device):
    kind, arg = spec.split()
    if kind == "gemm":
        m, n, k = (int(x) for x in arg.split("x"))
        a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
        return (lambda: torch.mm(a, b)), {"kind": "gemm", "m": m, "n": n, "k": k}
    if kind == "hbm":
        moved = int(arg)
        buf = torch.ones(moved // 8, device=device, dtype=torch.float32)
        return (lambda: buf.add_(1.0)), {"kind": "hbm", "bytes": moved}
    us = float(arg)
    return (lambda: torch.cuda._sleep(int(us * 1980))), {"kind": "idle", "us": us}


def timed(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) * 1e3


def run_loop(name, specs, board, args, device):
    kernels = [make_kernel(s, device) for s in specs]
    rested = []
    for fn, _ in kernels:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(5):
            time.sleep(0.05)
            times.append(timed(fn))
        rested.append(statistics.median(times))
    period = sum(rested)
    iters = max(20, int(args.sustain_s * 1e6 / period))
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(iters * len(kernels) + 1)]
    torch.cuda.synchronize()
    board.start()
    time.sleep(args.rest_ms / 1e3)
    t0 = time.perf_counter_ns()
    ev[0].record()
    i = 0
    for _ in range(iters):
        for fn, _ in kernels:
            fn()
            i += 1
            ev[i].record()
    torch.cuda.synchronize()
    samples = board.finish()
    times = [ev[j].elapsed_time(ev[j + 1]) * 1e3 for j in range(i)]
    total = sum(times)
    ends, acc = [], 0.0
    for t in times:
        acc += t
        ends.append(acc)
    out = []
    n = len(kernels)
    for k, (spec, (_, info)) in enumerate(zip(specs, kernels)):
        mine = [times[j] for j in range(k, i, n) if ends[j] > total / 2]
        # Full clock: the loop's first 30 ms, its first iteration left out (the wake-up after rest).
        first = [times[j] for j in range(k + n, i, n) if ends[j] <= 30e3] or [times[k + n]]
        out.append(dict(info, spec=spec, alone_us=rested[k], first_us=statistics.median(first),
                        steady_us=statistics.median(mine)))
    row = {"kind": "loop", "name": name, "iterations": iters, "span_ms": total / 1e3, "kernels": out,
           "steady": window(samples, t0 + int(total / 2 * 1e3), t0 + int(total * 1e3))}
    print(f"{name}: " + ", ".join(f"{o['spec']} {o['steady_us'] / o['first_us']:.3f}" for o in out) +
          f"; {row['steady']}", file=sys.stderr)
    del kernels
    torch.cuda.empty_cache()
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rest-ms", type=float, default=400.0)
    ap.add_argument("--sustain-s", type=float, default=2.0)
    args = ap.parse_args()
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    board = Board(0)
    os.makedirs(args.out, exist_ok=True)
    rows = [{"kind": "env", "device": torch.cuda.get_device_properties(device).name, "torch": torch.__version__,
             "board": board.static(), "rest_ms": args.rest_ms, "sustain_s": args.sustain_s,
             "command": " ".join(sys.argv), "loops": LOOPS}]
    for name, specs in LOOPS.items():
        rows.append(run_loop(name, specs, board, args, device))
    with open(os.path.join(args.out, "gemm_mix.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()

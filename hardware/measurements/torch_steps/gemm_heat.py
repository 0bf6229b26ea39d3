"""The board's draw with no work against its temperature: what a hot board draws before any kernel
(the static power a power-limit law subtracts), after seconds of GEMMs at the limit.

    python3 hardware/measurements/torch_steps/gemm_heat.py --out DIR

One GPU (cuda:0). Phases, each sampled through NVML every ~2 ms (host time, SM clock, averaged and
instant power, temperature): `cold_idle` (2 s, a CUDA context, nothing running), `gemm` (8 s of
tp's 8192 x 8192 x 14336 bf16 back to back, an event every 10 calls), `hot_idle` (3 s right after),
`hbm` (5 s of an elementwise add over 4 GiB), `hbm_idle` (3 s). Per phase: the samples' medians
over its first 200 ms, its last second and the whole phase; the GEMM's call times per 10 calls.

Writes DIR/gemm_heat.jsonl (an "env" line first, then one line per phase with its samples).
"""
import argparse
import json
import os
import statistics
import sys
import threading
import time

import torch


class Sampler:
    def __init__(self, index):
        import pynvml

        self.n = pynvml
        pynvml.nvmlInit()
        self.h = pynvml.nvmlDeviceGetHandleByIndex(index)
        self.rows, self.stop, self.thread = [], None, None

    def read(self):
        n, h = self.n, self.h
        try:
            fv = n.nvmlDeviceGetFieldValues(h, [n.NVML_FI_DEV_POWER_INSTANT])[0]
            inst = fv.value.uiVal / 1e3 if fv.nvmlReturn == 0 else None
        except (n.NVMLError, AttributeError):
            inst = None
        return [time.perf_counter_ns(), n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM),
                n.nvmlDeviceGetPowerUsage(h) / 1e3, inst, n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)]

    def _run(self):
        while not self.stop.is_set():
            self.rows.append(self.read())
            time.sleep(0.002)

    def start(self):
        self.rows, self.stop = [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def finish(self):
        self.stop.set()
        self.thread.join()
        return self.rows


def summary(rows, t0):
    def med(sel, k):
        vals = [r[k] for r in sel if r[k] is not None]
        return statistics.median(vals) if vals else None
    first = [r for r in rows if r[0] - t0 <= 200e6]
    last = [r for r in rows if r[0] >= rows[-1][0] - 1e9]
    out = {}
    for name, sel in (("first_200ms", first), ("last_1s", last), ("all", rows)):
        out[name] = {"clock_mhz": med(sel, 1), "nvml_avg_w": med(sel, 2), "instant_w": med(sel, 3),
                     "temp_c": med(sel, 4), "samples": len(sel)}
    return out


def phase(name, sampler, seconds, fn=None):
    torch.cuda.synchronize()
    sampler.start()
    t0 = time.perf_counter_ns()
    calls = []
    if fn is None:
        time.sleep(seconds)
    else:
        ev = []
        while time.perf_counter_ns() - t0 < seconds * 1e9:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(10):
                fn()
            e.record()
            ev.append((s, e))
            if len(ev) > 4:  # keep the host a few batches ahead, no further
                ev[-5][1].synchronize()
        torch.cuda.synchronize()
        calls = [round(s.elapsed_time(e) * 100, 1) for s, e in ev]  # us per call
    rows = sampler.finish()
    row = {"kind": "phase", "name": name, "seconds": seconds, "summary": summary(rows, t0),
           "call_us_per_10": calls,
           "samples": [[round((r[0] - t0) / 1e6, 2)] + r[1:] for r in rows]}
    s = row["summary"]
    print(f"{name}: first 200 ms {s['first_200ms']}, last 1 s {s['last_1s']}", file=sys.stderr)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    sampler = Sampler(0)
    os.makedirs(args.out, exist_ok=True)
    a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 14336, device=device, dtype=torch.bfloat16)
    big = torch.ones(1 << 30, device=device, dtype=torch.float32)
    torch.mm(a, b)
    big.add_(1.0)
    rows = [{"kind": "env", "device": torch.cuda.get_device_properties(device).name, "torch": torch.__version__,
             "command": " ".join(sys.argv)}]
    time.sleep(3)
    rows.append(phase("cold_idle", sampler, 2))
    rows.append(phase("gemm", sampler, 8, lambda: torch.mm(a, b)))
    rows.append(phase("hot_idle", sampler, 3))
    rows.append(phase("hbm", sampler, 5, lambda: big.add_(1.0)))
    rows.append(phase("hbm_idle", sampler, 3))
    with open(os.path.join(args.out, "gemm_heat.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()

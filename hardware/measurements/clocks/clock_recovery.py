"""How long does an H200 take to reach its steady clock under GEMM load, how long an idle gap
restores the rested state, and how much spinning wakes clocks after idle? Picks c3bench's trial
conditioning (hardware/hip/bench.h Conditioning; README.md here).

  ramp:     after 300 ms idle, a 16384x8192x53248 bf16 GEMM (~20 ms) back to back for 1.5 s;
            a sampler thread reads SM clock, power and clocks-event reasons every ~1 ms.
  recovery: 400 ms of that GEMM back to back, then an idle gap of G ms, then the GEMM once, timed,
            clocks read just before and after; G in GAPS, 3 rounds, gaps interleaved.
  wake:     after 100 ms idle, a spin of S ms (torch.cuda._sleep on one block), then a short GEMM
            (4096^3 and 8192^3) timed; S in SPINS, 5 rounds, interleaved.
One JSON line per sample / product on stdout:
    python3 clock_recovery.py > h200_clock_recovery.jsonl
"""
import json
import threading
import time

import pynvml
import torch

LONG = (16384, 8192, 53248)
GAPS = [0, 1, 2, 5, 10, 20, 50, 100, 200]
SPINS = [0, 0.5, 1, 2, 5]
SHORT = [(4096, 4096, 4096), (8192, 8192, 8192)]


def reading(h):
    try:
        reasons = pynvml.nvmlDeviceGetCurrentClocksEventReasons(h)
    except (AttributeError, pynvml.NVMLError):
        reasons = pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(h)
    return {"sm_mhz": pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
            "power_w": pynvml.nvmlDeviceGetPowerUsage(h) / 1000, "reasons": int(reasons)}


def operands(shape, dev):
    m, n, k = shape
    return torch.randn(m, k, device=dev, dtype=torch.bfloat16), torch.randn(k, n, device=dev, dtype=torch.bfloat16)


def timed(a, b):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    a @ b
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) * 1e3


def emit(**kv):
    print(json.dumps(kv), flush=True)


def main():
    pynvml.nvmlInit()
    h = pynvml.nvmlDeviceGetHandleByIndex(0)
    dev = torch.device("cuda", 0)
    a, b = operands(LONG, dev)
    flops = 2 * LONG[0] * LONG[1] * LONG[2]
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()

    # ramp
    time.sleep(0.3)
    samples, stop = [], threading.Event()
    t0 = time.perf_counter()

    def sample():
        while not stop.is_set():
            samples.append(dict(t_ms=(time.perf_counter() - t0) * 1e3, **reading(h)))
            time.sleep(0.001)

    th = threading.Thread(target=sample)
    th.start()
    time.sleep(0.02)
    events = []
    start = time.perf_counter()
    while time.perf_counter() - start < 1.5:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        events.append((s, e))
        if len(events) % 8 == 0:
            events[-8][1].synchronize()  # keep the queue short, the GPU busy
    torch.cuda.synchronize()
    time.sleep(0.1)
    stop.set()
    th.join()
    for i, (s, e) in enumerate(events):
        us = s.elapsed_time(e) * 1e3
        emit(phase="ramp", i=i, time_us=us, tflops=flops / us / 1e6)
    for smp in samples:
        emit(phase="ramp_sample", **smp)

    # recovery
    for rnd in range(3):
        for gap in GAPS:
            end = time.perf_counter() + 0.4
            while time.perf_counter() < end:
                for _ in range(4):
                    a @ b
                torch.cuda.synchronize()
            if gap:
                time.sleep(gap / 1e3)
            before = reading(h)
            us = timed(a, b)
            emit(phase="recovery", round=rnd, gap_ms=gap, time_us=us, tflops=flops / us / 1e6,
                 before=before, after=reading(h))
    del a, b
    torch.cuda.empty_cache()

    # wake
    for shape in SHORT:
        a, b = operands(shape, dev)
        f = 2 * shape[0] * shape[1] * shape[2]
        for _ in range(5):
            a @ b
        torch.cuda.synchronize()
        for rnd in range(5):
            for spin in SPINS:
                time.sleep(0.1)
                if spin:
                    torch.cuda._sleep(int(spin * 1.98e6))  # cycles at the 1980 MHz boost clock
                    torch.cuda.synchronize()
                before = reading(h)
                us = timed(a, b)
                emit(phase="wake", m=shape[0], n=shape[1], k=shape[2], round=rnd, spin_ms=spin, time_us=us,
                     tflops=f / us / 1e6, before=before, after=reading(h))
        del a, b
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

"""Isolated bf16 GEMMs over K (and small squares) on one H200: what a short or small-K GEMM costs
beyond its FLOPs, back to back and from rest (issue 14: model.gemm.epilogue_exposed and
model.gemm.start_latency, fitted on the conditioned 2 x H200 files, predicted here).

Per shape: 3 warm-up products, then 12 timed products in each mode:
  back_to_back  one after another (the stream never idles)
  rest_20ms     host sleeps 20 ms, a 2 ms single-block spin (torch.cuda._sleep), then the product:
                the conditioned c3bench trials' state (idle 20 ms + spin 2 ms)
Every product timed with CUDA events around the matmul alone; SM clock and power (NVML) after
each. One JSON line per product on stdout:
    python3 gemm_k_sweep.py > h200_gemm_k_sweep.jsonl
"""
import json
import time

import torch

try:
    import pynvml
except ImportError:  # clocks are a bonus, not the measurement
    pynvml = None

SHAPES = ([(8192, 8192, k) for k in (128, 256, 512, 1024, 2048, 4096, 8192)] +
          [(16384, 16384, k) for k in (256, 512, 1024, 2048)] +
          [(s, s, s) for s in (1024, 2048, 3072, 4096, 6144)])


def main():
    h = None
    if pynvml is not None:
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
    dev = torch.device("cuda", 0)
    spin_cycles = int(2e-3 * 1.98e9)
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        for _ in range(3):
            a @ b
        torch.cuda.synchronize()
        for mode in ("back_to_back", "rest_20ms"):
            for i in range(12):
                if mode == "rest_20ms":
                    torch.cuda.synchronize()
                    time.sleep(0.02)
                    torch.cuda._sleep(spin_cycles)
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                a @ b
                e.record()
                if mode == "rest_20ms" or i == 11:
                    torch.cuda.synchronize()
                rec = {"m": m, "n": n, "k": k, "dtype": "bf16", "mode": mode, "i": i, "event": (s, e)}
                if h is not None:
                    rec["sm_clock_mhz"] = pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
                    rec["power_w"] = pynvml.nvmlDeviceGetPowerUsage(h) / 1000
                yield_record(rec)
        torch.cuda.synchronize()
        flush()
        del a, b
        torch.cuda.empty_cache()


PENDING = []


def yield_record(rec):
    PENDING.append(rec)


def flush():
    for rec in PENDING:
        s, e = rec.pop("event")
        us = s.elapsed_time(e) * 1e3
        rec["time_us"] = us
        rec["tflops"] = 2 * rec["m"] * rec["n"] * rec["k"] / us / 1e6
        print(json.dumps(rec), flush=True)
    PENDING.clear()


if __name__ == "__main__":
    print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda,
                      "device": torch.cuda.get_device_name(0)}), flush=True)
    main()

"""Does a long GEMM run slower than a short one because the GPU lowers its clock under sustained
matrix load (power/thermal), and does that depend on what ran just before?

For each GEMM shape: 3 warm-up products, then 12 timed products back to back, then 12 with a
50 ms idle gap before each; every product timed with CUDA events, the SM clock and board power
read (NVML) right after each. One JSON line per product on stdout.
    python3 gemm_clocks.py > gemm_clocks.jsonl
"""
import json
import time

import pynvml
import torch

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (10240, 8192, 8192),
          (57344, 8192, 8192), (16384, 8192, 53248), (16384, 8192, 106496)]


def main():
    pynvml.nvmlInit()
    h = pynvml.nvmlDeviceGetHandleByIndex(0)
    dev = torch.device("cuda", 0)
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        for _ in range(3):
            a @ b
        torch.cuda.synchronize()
        for mode in ("back_to_back", "gap_50ms"):
            for i in range(12):
                if mode == "gap_50ms":
                    time.sleep(0.05)
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                a @ b
                e.record()
                torch.cuda.synchronize()
                us = s.elapsed_time(e) * 1e3
                print(json.dumps({"m": m, "n": n, "k": k, "mode": mode, "i": i, "time_us": us,
                                  "tflops": 2 * m * n * k / us / 1e6,
                                  "sm_clock_mhz": pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                                  "power_w": pynvml.nvmlDeviceGetPowerUsage(h) / 1000,
                                  "temp_c": pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)}),
                      flush=True)
        del a, b
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

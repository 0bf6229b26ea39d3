"""Device-to-device copy bandwidth on one GPU (read + write bytes over time), as the H200 preset's
model.memory.hbm_bandwidth was measured: `b.copy_(a)` of 1 and 4 GiB, timed with CUDA events,
20 repetitions after 3 warm-ups, median. Prints one JSON line per size."""
import json
import statistics
import sys

import torch


def main():
    dev = torch.device("cuda", 0)
    out = []
    for gib in (1, 4):
        n = (gib << 30) // 2
        a = torch.empty(n, dtype=torch.bfloat16, device=dev).normal_()
        b = torch.empty_like(a)
        for _ in range(3):
            b.copy_(a)
        torch.cuda.synchronize()
        times = []
        for _ in range(20):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            b.copy_(a)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1e3)  # us
        t = statistics.median(times)
        rec = {"gpu": torch.cuda.get_device_name(dev), "bytes_copied": gib << 30, "time_us": t,
               "spread_us": max(times) - min(times), "read_plus_write_tb_s": 2 * (gib << 30) / (t * 1e-6) / 1e12,
               "trials": len(times), "torch": torch.__version__}
        out.append(rec)
        print(json.dumps(rec), flush=True)
        del a, b
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())

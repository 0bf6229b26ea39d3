"""Which cuBLAS kernel (name, grid, block) one H200 runs for each GEMM shape the H200 files measure:
the 7 Table I GEMMs and the 19 beyond-Table-I GEMMs, bf16, C = A @ B as PyTorch issues it.
The tile scheduler (static persistent, stream-K, data-parallel grid) is library behaviour per
shape; the simulator's `model.gemm.persistent` / `dynamic_tiles` describe one of them for all.
Writes one JSON line per shape: the GEMM kernel(s) of the third of three calls under torch.profiler."""
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

TABLE1 = [("cb1", 8192, 8192, 8192), ("cb2", 16384, 8192, 16384), ("cb3", 16384, 16384, 8192),
          ("cb4", 18432, 8192, 16384), ("cb5", 106496, 8192, 16384), ("mb1", 8192, 57344, 8192),
          ("mb2", 16384, 106496, 8192)]  # as ../dtype_h200/gemm_dtype_sweep.py


def beyond(path):
    shapes = []
    for line in open(path):
        line = line.strip()
        if line.startswith("gemm:"):
            d = dict(kv.split(": ") for kv in line[len("gemm: {"):-1].split(", "))
            shapes.append((d["tag"], int(d["m"]), int(d["n"]), int(d["k"])))
    return shapes


def main():
    shapes = TABLE1 + beyond(sys.argv[1])
    dev = torch.device("cuda", 0)
    out = open(sys.argv[2], "w")
    for tag, m, n, k in shapes:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        for _ in range(2):
            a @ b
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            a @ b
            torch.cuda.synchronize()
        kernels = []
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                kernels.append({"name": e.name, "us": e.device_time_total})
        prof.export_chrome_trace(f"/tmp/{tag}.json")
        grids = []
        for ev in json.load(open(f"/tmp/{tag}.json"))["traceEvents"]:
            if ev.get("cat") == "kernel":
                grids.append({"name": ev["name"], "grid": ev["args"].get("grid"), "block": ev["args"].get("block"),
                              "registers": ev["args"].get("registers per thread"),
                              "smem": ev["args"].get("shared memory"), "dur_us": ev.get("dur")})
        rec = {"tag": tag, "m": m, "n": n, "k": k, "dtype": "bf16", "gpu": torch.cuda.get_device_name(dev),
               "torch": torch.__version__, "kernels": grids or kernels}
        print(json.dumps(rec), file=out, flush=True)
        print(tag, m, n, k, [(g["name"][:90], g["grid"]) for g in grids], flush=True)
        del a, b
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())

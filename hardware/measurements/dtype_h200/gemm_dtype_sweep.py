"""Isolated GEMMs per dtype (bf16, fp16, fp8 e4m3) on one H200, for the H200 preset's
model.gemm.dtype_efficiency (issue 14, Deliver 2: dtype-dependent GEMM efficiency).

Shapes: the seven Table I GEMMs (wl::table1_gemms, workloads/paper_catalog.cpp; cb1 is 8192^3),
4096^3, and one shape of exactly one wave of 128x256 tiles on 132 SMs (12 x 11 tiles, long K).
Variants per shape:
  bf16, fp16     a @ b, both row-major (cuBLAS NN, as c3bench's cublasLt GEMMs and
                 ../gemm_k/gemm_k_sweep.py): tag = the shape's tag
  fp8            torch._scaled_mm(a, b) in float8_e4m3fn, per-tensor float32 scales, b column-major
                 (the layout it requires: cuBLASLt TN), bf16 output, use_fast_accum=False: tag = tag
  fp8 fast       the same with use_fast_accum=True: tag = tag + ".fast_accum"
  bf16 tn        bf16 in fp8's layout (b column-major): tag = tag + ".tn", so a difference between
                 fp8 and bf16 can be told from one between layouts
Conditioning (as gemm_k_sweep.py's rest_20ms, why: ../harness_gemm/README.md): per variant
`--warmups` products, then `--trials` timed ones, each after the host sleeps 20 ms and queues a
2 ms single-block spin (torch.cuda._sleep); CUDA events around the product alone, so the product
is queued behind a running kernel and its host call and launch are not timed. Inputs are random
(never zeros); each variant's output is checked against a float32 product of the same (fp8:
dequantized) inputs on a 256 x 1024 corner (relative Frobenius error in extra.rel_err).

Output: the c3sim measurement schema (JSON Lines): an env record, then one iso_gemm record per
shape and variant (median of the trials, spread = max - min); --raw also writes every trial.
    python3 gemm_dtype_sweep.py -o h200_gemm_dtype.jsonl --raw h200_gemm_dtype_trials.jsonl
    python3 gemm_dtype_sweep.py --dry-run -o plan.jsonl    # no GPU, no torch: synthetic times
"""
import argparse
import json
import statistics
import sys
import time

TABLE1 = [("cb1", 8192, 8192, 8192), ("cb2", 16384, 8192, 16384), ("cb3", 16384, 16384, 8192),
          ("cb4", 18432, 8192, 16384), ("cb5", 106496, 8192, 16384), ("mb1", 8192, 57344, 8192),
          ("mb2", 16384, 106496, 8192)]
# 4096^3 (8192^3 is cb1); one wave: 1536 / 128 x 2816 / 256 = 12 x 11 = 132 tiles of 128x256.
EXTRA = [("g4096x4096x4096", 4096, 4096, 4096), ("wave1", 1536, 2816, 32768)]
# name: (dtype, tag suffix, layout, fast_accum)
VARIANTS = [("bf16", "bf16", "", "nn", None), ("fp16", "fp16", "", "nn", None),
            ("fp8", "fp8", "", "tn", False), ("fp8_fast", "fp8", ".fast_accum", "tn", True),
            ("bf16_tn", "bf16", ".tn", "tn", None)]
SPIN_S = 2e-3
REST_S = 0.02
CHECK_ROWS, CHECK_COLS = 256, 1024


def record(tag, m, n, k, dtype, times_us, extra):
    return {"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm", "tag": tag, "m": m, "n": n,
            "k": k, "dtype": dtype, "cus": 132, "time_us": statistics.median(times_us),
            "spread_us": max(times_us) - min(times_us), "trials": len(times_us), "extra": extra}


def env_record(hardware, sms, details):
    return {"schema": "c3sim.measurement", "version": 1, "kind": "env", "producer": "gemm_dtype_sweep.py (PyTorch)",
            "hardware": hardware, "gpus": 1, "cus_per_gpu": sms, "details": details}


def summary(records):
    lines = [f"{'tag':22} {'dtype':5} {'time_us':>10} {'spread':>8} {'TFLOP/s':>8} {'rel_err':>8}"]
    for r in records:
        if r["kind"] != "iso_gemm":
            continue
        e = r["extra"]
        lines.append(f"{r['tag']:22} {r['dtype']:5} {r['time_us']:10.1f} {r['spread_us']:8.1f} "
                     f"{e['tflops']:8.1f} {e.get('rel_err', float('nan')):8.1e}")
    return "\n".join(lines)


def dry_run(args):
    """No torch: synthetic times (bf16 at 790 TFLOP/s, fp8 at twice that) to check the plan and the
    records' schema (`c3sim calibrate FILE --hardware h200-sxm` reads them)."""
    records = [env_record("dry run", 132, {"dry_run": True})]
    for tag, m, n, k in TABLE1 + EXTRA:
        for _, dtype, suffix, layout, fast in VARIANTS:
            rate = 790e12 * (2 if dtype == "fp8" else 1)
            t = 2 * m * n * k / rate * 1e6
            times = [t * (1 + 0.001 * i) for i in range(args.trials)]
            records.append(record(tag + suffix, m, n, k, dtype, times,
                                  {"layout": layout, "fast_accum": fast, "tflops": 2 * m * n * k / t / 1e6}))
    return records


def measure(args):
    import torch
    try:
        import pynvml
    except ImportError:  # clocks are a bonus, not the measurement
        pynvml = None
    nvml = None
    details = {"torch": torch.__version__, "cuda": torch.version.cuda, "conditioning": "rest_20ms",
               "warmups": args.warmups, "method": "gemm_dtype_sweep.py"}
    if pynvml is not None:
        pynvml.nvmlInit()
        nvml = pynvml.nvmlDeviceGetHandleByIndex(0)
        details["driver"] = pynvml.nvmlSystemGetDriverVersion()
        if isinstance(details["driver"], bytes):
            details["driver"] = details["driver"].decode()
    torch.backends.cuda.matmul.allow_tf32 = False  # the float32 reference products
    details["fp16_reduced_precision_reduction"] = torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
    dev = torch.device("cuda", 0)
    props = torch.cuda.get_device_properties(dev)
    records = [env_record(props.name, props.multi_processor_count, details)]
    raw = open(args.raw, "w") if args.raw else None
    gen = torch.Generator(device=dev)
    gen.manual_seed(14)
    for tag, m, n, k in TABLE1 + EXTRA:
        a0 = torch.randn(m, k, device=dev, generator=gen, dtype=torch.bfloat16)
        b0 = torch.randn(k, n, device=dev, generator=gen, dtype=torch.bfloat16)
        for variant in VARIANTS:
            try:
                records.append(time_variant(torch, args, nvml, pynvml, raw, (tag, m, n, k), variant, a0, b0))
                print(summary([records[-1]]).splitlines()[1], file=sys.stderr, flush=True)
            except Exception as err:  # noqa: BLE001  one failing variant must not lose the others
                print(f"{tag} {variant[0]}: FAILED: {err!r}", file=sys.stderr, flush=True)
        del a0, b0
        torch.cuda.empty_cache()
    if raw:
        raw.close()
    return records


def time_variant(torch, args, nvml, pynvml, raw, shape, variant, a0, b0):
    """One variant of one shape: correctness check, warm-ups, conditioned trials -> its record."""
    tag, m, n, k = shape
    name, dtype, suffix, layout, fast = variant
    spin_cycles = int(SPIN_S * 1.98e9)
    if name in ("bf16", "fp16"):
        t = torch.bfloat16 if name == "bf16" else torch.float16
        a, b = a0.to(t), b0.to(t)
        fn = (lambda a=a, b=b: a @ b)  # noqa: E731
        ref_a, ref_b = a[:CHECK_ROWS].float(), b[:, :CHECK_COLS].float()
    elif name == "bf16_tn":
        a, b = a0, b0.t().contiguous().t()  # same values, b column-major
        fn = (lambda a=a, b=b: a @ b)  # noqa: E731
        ref_a, ref_b = a[:CHECK_ROWS].float(), b[:, :CHECK_COLS].float()
    else:
        # Per-tensor scales: amax onto e4m3's largest finite value (448).
        sa = (a0.abs().max().float() / 448.0).reshape(())
        sb = (b0.abs().max().float() / 448.0).reshape(())
        a = (a0.float() / sa).to(torch.float8_e4m3fn)
        b = (b0.float() / sb).to(torch.float8_e4m3fn).t().contiguous().t()
        fn = (lambda a=a, b=b, sa=sa, sb=sb, fast=fast:  # noqa: E731
              torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast))
        ref_a, ref_b = a[:CHECK_ROWS].float() * sa, b[:, :CHECK_COLS].float() * sb
    out = fn()
    ref = ref_a @ ref_b
    got = out[:CHECK_ROWS, :CHECK_COLS].float()
    rel_err = float((got - ref).norm() / ref.norm())
    del out, ref, got, ref_a, ref_b
    for _ in range(args.warmups):
        fn()
    torch.cuda.synchronize()
    times, clocks, power = [], [], []
    for i in range(args.trials):
        torch.cuda.synchronize()
        time.sleep(REST_S)
        torch.cuda._sleep(spin_cycles)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        us = s.elapsed_time(e) * 1e3
        times.append(us)
        trial = {"tag": tag + suffix, "m": m, "n": n, "k": k, "dtype": dtype, "variant": name, "i": i,
                 "time_us": us}
        if nvml is not None:
            trial["sm_clock_mhz"] = pynvml.nvmlDeviceGetClockInfo(nvml, pynvml.NVML_CLOCK_SM)
            trial["power_w"] = pynvml.nvmlDeviceGetPowerUsage(nvml) / 1000
            clocks.append(trial["sm_clock_mhz"])
            power.append(trial["power_w"])
        if raw:
            raw.write(json.dumps(trial) + "\n")
    extra = {"layout": layout, "fast_accum": fast, "rel_err": rel_err,
             "tflops": 2 * m * n * k / statistics.median(times) / 1e6,
             "min_us": min(times), "max_us": max(times)}
    if clocks:
        extra["sm_clock_mhz"] = statistics.median(clocks)
        extra["power_w"] = statistics.median(power)
    return record(tag + suffix, m, n, k, dtype, times, extra)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-o", "--output", required=True, help="iso_gemm records (c3sim measurement schema)")
    p.add_argument("--raw", help="every timed trial, one JSON line each")
    p.add_argument("--trials", type=int, default=12)
    p.add_argument("--warmups", type=int, default=2)
    p.add_argument("--dry-run", action="store_true", help="no GPU: synthetic times, to check the plan")
    args = p.parse_args()
    records = dry_run(args) if args.dry_run else measure(args)
    with open(args.output, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    print(summary(records))


if __name__ == "__main__":
    main()

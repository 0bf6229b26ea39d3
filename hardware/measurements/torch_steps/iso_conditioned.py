"""Isolated records of the captured steps' GEMMs and collectives, timed the way c3bench conditions
a trial, beside the back-to-back timing capture_steps.py used; read from the committed traces, so
the steps themselves need not run again.

    NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc_per_node 2 \
        hardware/measurements/torch_steps/iso_conditioned.py --out DIR [--steps ddp_b25,moe]
    NCCL_ALGO=Ring NCCL_PROTO=LL torchrun --standalone --nproc_per_node 2 \
        hardware/measurements/torch_steps/iso_conditioned.py --out DIR --protocol-sweep

Per step S (rank 0's trace S/rank0.json names what to time) it writes DIR/S/iso_conditioned.jsonl
(c3sim measurement schema 1, an env record first). Every distinct GEMM call (traced shapes, strides
and dtype, random normal operands) runs on GPU 0 three ways, each one record per m x n x k x dtype
(count-weighted mean of the layouts' medians, as capture_steps.py):

  extra.timing "back_to_back"      capture_steps.py's timing: 5 warm-ups, then 20 calls, each between
                                   two CUDA events and a host synchronize
  extra.timing "conditioned"       per trial: an idle gap (--idle-ms), a ~2 ms spin on the stream
                                   (torch.cuda._sleep, one thread: clocks up, far from the power
                                   limit), then CUDA events around the one call queued behind it, so
                                   the host's launch is hidden and the events time the device
  extra.timing "conditioned_busy"  the same with the spin replaced by ~2 ms of a memory-bound kernel
                                   on every SM (in the step a GEMM follows such kernels)

Every distinct collective of the trace runs on every rank: "back_to_back" as capture_steps.py (20
calls, each between events and a synchronize, with what NCCL ran from its log when NCCL_DEBUG is
set), and "conditioned": per trial a barrier, the idle gap, a 4-byte all-reduce that lines the GPUs
up on the device, the spin, then the events around the collective. time_us is rank 0's median;
extra.rank_medians_us every rank's.

Conditioned records carry extra.clocks: the SM clock (MHz) and board power (W) NVML reported while
each trial's warm-up ran (NVML refreshes them about every 100 ms), when libnvidia-ml is reachable.

--protocol-sweep times all-reduce, all-gather and reduce-scatter at 4 KiB-4 MiB under the NCCL_ALGO
/ NCCL_PROTO the run was started with (DIR/protocol_<ALGO>_<PROTO>.jsonl): conditioned single calls
and "queued" (20 calls behind one spin, the block's time / 20: the device's time per call with the
host out of the way).

"conditioned_kernels" (unless --no-kernel-timing): the conditioned trials again under the profiler,
each GEMM and collective timed by its kernels as the step's trace times them (first kernel start to
last kernel end behind the warm-up); DIR/S/events_vs_kernels.json compares each trial's event time
with its kernels.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "nccl_protocols")]
import capture_steps as cs  # noqa: E402
import nccl_log  # noqa: E402

SPIN_CYCLES = 4_000_000  # ~2 ms at the H200's 1980 MHz SM clock
BUSY_BYTES = 1 << 29  # fp32 buffer one busy pass reads and writes (~0.25 ms at HBM speed)
BUSY_PASSES = 8
SWEEP_BYTES = [4096, 8192, 65536, 262144, 1 << 20, 4 << 20]


class Nvml:
    """SM clock and board power through libnvidia-ml (ctypes), or nothing where it is missing."""

    def __init__(self, index):
        self.lib, self.handle = None, ctypes.c_void_p()
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            if lib.nvmlInit_v2() == 0 and lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self.handle)) == 0:
                self.lib = lib
        except OSError:
            pass

    def read(self):
        if self.lib is None:
            return None
        clock, power = ctypes.c_uint(), ctypes.c_uint()
        ok = self.lib.nvmlDeviceGetClockInfo(self.handle, 1, ctypes.byref(clock)) == 0  # NVML_CLOCK_SM
        ok_p = self.lib.nvmlDeviceGetPowerUsage(self.handle, ctypes.byref(power)) == 0
        return [clock.value if ok else None, power.value / 1000 if ok_p else None]


class Warmups:
    def __init__(self, device):
        self.buf = torch.zeros(BUSY_BYTES // 4, device=device, dtype=torch.float32)

    def spin(self):
        torch.cuda._sleep(SPIN_CYCLES)

    def busy(self):
        for _ in range(BUSY_PASSES):
            self.buf.add_(1.0)


def stats(times):
    return statistics.median(times), min(times), max(times), len(times)


def conditioned(fn, warm, idle_ms, trials, nvml, align=None, prime=True):
    """Per trial: (barrier,) idle gap, (device alignment,) warm-up, events around fn; one untimed
    call first when prime (cuBLAS's heuristics, NCCL's first-use setup)."""
    times, clocks = [], []
    if prime:
        fn()
    torch.cuda.synchronize()
    for _ in range(trials):
        torch.cuda.synchronize()
        if align is not None:
            dist.barrier()
        time.sleep(idle_ms / 1e3)
        if align is not None:
            align()
        warm()
        if align is not None:
            align()  # again: a spin of fixed cycles ends apart on GPUs whose clocks differ
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        clocks.append(nvml.read() if nvml else None)  # the host gets here while the warm-up runs
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return times, clocks


def queued(fn, warm, calls, trials, align):
    times = []
    for _ in range(trials):
        torch.cuda.synchronize()
        dist.barrier()
        align()
        warm()
        align()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return times


def gemm_records(step, events, device, args, nvml, warm):
    props = torch.cuda.get_device_properties(device)
    by_shape = {}
    for (name, dims, strides, types), count in cs.gemm_calls(events):
        dt = cs.torch_dtype(types[-1])
        ops = [cs.make_operand(d, s, dt, device) for d, s in zip(dims, strides)]
        fn = cs.run_gemm_call(name, ops)
        key = cs.gemm_mnk(name, dims) + (cs.dtype_name(types[-1]),)
        layout = {"op": name, "dims": dims, "strides": strides, "count": count}
        runs = {"back_to_back": (cs.timed_us(fn), None)}
        for timing, w in (("conditioned", warm.spin), ("conditioned_busy", warm.busy)):
            t, c = conditioned(fn, w, args.idle_ms, args.trials, nvml)
            runs[timing] = (stats(t), c)
        for timing, ((med, lo, hi, n), clocks) in runs.items():
            entry = dict(layout, median_us=med, min_us=lo, max_us=hi, trials=n)
            if clocks is not None:
                entry["clocks"] = clocks
            by_shape.setdefault((timing,) + key, []).append(entry)
        del ops, fn
    out = []
    for (timing, m, n, k, dt), layouts in sorted(by_shape.items()):
        total = sum(lay["count"] for lay in layouts)
        t = sum(lay["median_us"] * lay["count"] for lay in layouts) / total
        lo, hi = min(lay["min_us"] for lay in layouts), max(lay["max_us"] for lay in layouts)
        out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm",
                    "tag": f"{step}_{m}x{n}x{k}_{dt}_{timing}", "m": m, "n": n, "k": k, "dtype": dt,
                    "cus": props.multi_processor_count, "time_us": t, "spread_us": hi - lo,
                    "trials": sum(lay["trials"] for lay in layouts),
                    "extra": {"min_us": lo, "max_us": hi, "source": "torch", "step": step, "operands": "random",
                              "timing": timing, "idle_ms": args.idle_ms if timing != "back_to_back" else None,
                              "calls_in_step": total, "tflops": 2 * m * n * k / t / 1e6, "layouts": layouts}})
    return out


def coll_fn(op, in_n, out_n, dt, device, world):
    """The collective as a call, and its size in elements as c3sim counts it (sim/base/collective_op.h,
    workloads/torch_trace_import.cpp): all-gather output, reduce-scatter per-GPU OUTPUT, all-reduce
    buffer, all-to-all input."""
    src = torch.randn(in_n, device=device, dtype=dt)
    if op == "all_gather":
        dst = torch.empty(out_n or in_n * world, device=device, dtype=dt)
        return (lambda: dist.all_gather_into_tensor(dst, src)), dst.numel()
    if op == "reduce_scatter":
        dst = torch.empty(in_n // world, device=device, dtype=dt)
        return (lambda: dist.reduce_scatter_tensor(dst, src)), dst.numel()
    if op == "all_to_all":
        dst = torch.empty_like(src)
        return (lambda: dist.all_to_all_single(dst, src)), in_n
    return (lambda: dist.all_reduce(src)), in_n


def nccl_choice(fn, op, rank):
    """What NCCL ran for fn: its TUNING lines over three calls (rank 0's log), or None."""
    start = cs.log_offset()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    end = cs.log_offset()
    if rank != 0 or start is None or end is None:
        return None
    return nccl_log.dominant_choice(nccl_log.read_range(cs.nccl_log_path(), start, end), nccl_log.NCCL_FUNC.get(op))


def gathered(value):
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, value)
    return out


def coll_record(op, nbytes, timing, timed, clocks, choice, extra, world, step):
    """timed: (median, min, max, trials) of this rank."""
    med, lo, hi, n = timed
    meds = gathered(med)
    rec = {"schema": "c3sim.measurement", "version": 1, "kind": "iso_coll", "op": op, "impl": "cu", "gpus": world,
           "bytes": nbytes, "time_us": med, "spread_us": hi - lo, "trials": n,
           "extra": dict(extra, min_us=lo, max_us=hi, source="torch", step=step, timing=timing,
                         rank_medians_us=meds, nccl=choice,
                         protocol=choice["protocol"] if choice else None,
                         algorithm=choice["algorithm"] if choice else None,
                         channels=choice["channels"] if choice else None)}
    if clocks is not None:
        rec["extra"]["clocks"] = clocks
    return rec


def coll_records(step, calls, device, args, nvml, warm, align):
    rank, world = dist.get_rank(), dist.get_world_size()
    out = []
    for (op, cname, in_n, out_n, dtype, group), info in calls:
        dt_key = (dtype or "").lower()
        if op is None or dt_key not in cs.TORCH_OF or not in_n or group != world:
            continue
        fn, elems = coll_fn(op, in_n, out_n, cs.TORCH_OF[dt_key], device, world)
        nbytes = elems * cs.ELEM_BYTES[dt_key]
        dist.barrier()
        choice = nccl_choice(fn, op, rank)
        extra = {"collective_name": cname, "in_nelems": in_n, "out_nelems": out_n, "dtype": dtype,
                 "calls_in_step": info["count"], "kernels_in_step": info["kernels"],
                 "idle_ms": None}
        out.append(coll_record(op, nbytes, "back_to_back", cs.timed_us(fn), None, choice, extra, world, step))
        t, c = conditioned(fn, warm.spin, args.idle_ms, args.trials, nvml, align)
        out.append(coll_record(op, nbytes, "conditioned", stats(t), c, choice, dict(extra, idle_ms=args.idle_ms),
                               world, step))
        del fn
    return out


def kernel_timed(step, events, calls, device, args, warm, align, out_dir):
    """The conditioned trials again under the profiler: every GEMM (rank 0) and collective timed by
    its traced kernels (first kernel start to last kernel end behind the warm-up), as the step's
    trace times them, beside the events of the same trials. Returns "conditioned_kernels" records
    (rank 0) and writes DIR/S/events_vs_kernels.json."""
    rank, world = dist.get_rank(), dist.get_world_size()
    todo = []
    for (name, dims, strides, types), count in cs.gemm_calls(events):
        if rank != 0:
            continue
        dt = cs.torch_dtype(types[-1])
        ops = [cs.make_operand(d, s, dt, device) for d, s in zip(dims, strides)]
        key = cs.gemm_mnk(name, dims) + (cs.dtype_name(types[-1]),)
        todo.append(("gemm", key, {"op": name, "dims": dims, "strides": strides, "count": count},
                     cs.run_gemm_call(name, ops), ops))
    for (op, cname, in_n, out_n, dtype, group), info in calls:
        dt_key = (dtype or "").lower()
        if op is None or dt_key not in cs.TORCH_OF or not in_n or group != world:
            continue
        fn, elems = coll_fn(op, in_n, out_n, cs.TORCH_OF[dt_key], device, world)
        todo.append(("collective", (op, elems * cs.ELEM_BYTES[dt_key]),
                     {"collective_name": cname, "in_nelems": in_n, "out_nelems": out_n, "dtype": dtype,
                      "calls_in_step": info["count"], "kernels_in_step": info["kernels"]}, fn, None))
    for kind, _k, _i, fn, _o in todo:  # cuBLAS heuristics and NCCL setup outside the trace
        fn()
    torch.cuda.synchronize()
    dist.barrier()
    plan = []
    path = os.path.join("/tmp", f"iso_cond_prof_{step}_{rank}.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i, (kind, _k, _i, fn, _o) in enumerate(todo):
            t, _c = conditioned(fn, warm.spin, args.idle_ms, args.trials, None,
                                align if kind == "collective" else None, prime=False)
            plan += [(i, x) for x in t]
    prof.export_chrome_trace(path)
    kernels = sorted((e for e in cs.read_trace(path) if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    os.remove(path)
    if rank != 0:
        return []
    spins = [i for i, e in enumerate(kernels) if "spin" in e["name"].lower()]
    if len(spins) != len(plan):
        print(f"{step}: {len(spins)} spins traced for {len(plan)} trials; kernel timing skipped", file=sys.stderr)
        return []
    rows = []
    for j, (i, ev_us) in enumerate(plan):
        kind, key, info = todo[i][:3]
        after = kernels[spins[j] + 1:spins[j + 1] if j + 1 < len(spins) else len(kernels)]
        if kind == "collective":
            after = [e for e in after if "nccl" in e["name"].lower()][1:2]  # behind the second alignment
        else:  # the next trial's barrier and alignment kernels are NCCL's
            after = [e for e in after if "nccl" not in e["name"].lower()]
        if not after:
            continue
        span = max(e["ts"] + e["dur"] for e in after) - after[0]["ts"]
        rows.append({"i": i, "kind": kind, "key": list(key), "event_us": ev_us, "kernel_span_us": span,
                     "kernels": sorted({e["name"][:60] for e in after}), "event_minus_kernel_us": ev_us - span,
                     "rel": (ev_us - span) / span})
    summary = {}
    for kind in ("gemm", "collective"):
        r = [x for x in rows if x["kind"] == kind]
        if r:
            summary[kind] = {"n": len(r), "median_diff_us": statistics.median(x["event_minus_kernel_us"] for x in r),
                             "min_diff_us": min(x["event_minus_kernel_us"] for x in r),
                             "max_diff_us": max(x["event_minus_kernel_us"] for x in r),
                             "median_rel": statistics.median(x["rel"] for x in r)}
    with open(os.path.join(out_dir, "events_vs_kernels.json"), "w") as f:
        json.dump({"step": step, "trials_per_call": args.trials, "summary": summary, "rows": rows}, f, indent=1)
    print(f"{step}: events vs kernels {json.dumps(summary)}", file=sys.stderr)
    props = torch.cuda.get_device_properties(device)
    by_shape, out = {}, []
    for i, (kind, key, info, _f, _o) in enumerate(todo):
        spans = [x["kernel_span_us"] for x in rows if x["i"] == i]
        if not spans:
            continue
        med, lo, hi, n = stats(spans)
        if kind == "gemm":
            by_shape.setdefault(key, []).append(dict(info, median_us=med, min_us=lo, max_us=hi, trials=n))
            continue
        op, nbytes = key
        out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_coll", "op": op, "impl": "cu",
                    "gpus": world, "bytes": nbytes, "time_us": med, "spread_us": hi - lo, "trials": n,
                    "extra": dict(info, min_us=lo, max_us=hi, source="torch", step=step,
                                  timing="conditioned_kernels", idle_ms=args.idle_ms)})
    for (m, n, k, dt), layouts in sorted(by_shape.items()):
        total = sum(lay["count"] for lay in layouts)
        t = sum(lay["median_us"] * lay["count"] for lay in layouts) / total
        lo, hi = min(lay["min_us"] for lay in layouts), max(lay["max_us"] for lay in layouts)
        out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm",
                    "tag": f"{step}_{m}x{n}x{k}_{dt}_conditioned_kernels", "m": m, "n": n, "k": k, "dtype": dt,
                    "cus": props.multi_processor_count, "time_us": t, "spread_us": hi - lo,
                    "trials": sum(lay["trials"] for lay in layouts),
                    "extra": {"min_us": lo, "max_us": hi, "source": "torch", "step": step, "operands": "random",
                              "timing": "conditioned_kernels", "idle_ms": args.idle_ms, "calls_in_step": total,
                              "tflops": 2 * m * n * k / t / 1e6, "layouts": layouts}})
    return out


def env_record(device, step, args):
    props = torch.cuda.get_device_properties(device)
    keys = ("NCCL_NVLS_ENABLE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS")
    return {"schema": "c3sim.measurement", "version": 1, "kind": "env", "producer": "torch", "hardware": props.name,
            "gpus": dist.get_world_size(), "cus_per_gpu": props.multi_processor_count,
            "details": {"torch": torch.__version__, "cuda": torch.version.cuda,
                        "nccl": ".".join(map(str, torch.cuda.nccl.version())), "step": step,
                        "environment": {k: os.environ.get(k, "") for k in keys},
                        "conditioning": {"idle_ms": args.idle_ms, "spin_cycles": SPIN_CYCLES,
                                         "busy": f"{BUSY_PASSES} x add_ over {BUSY_BYTES >> 20} MiB fp32",
                                         "trials": args.trials, "command": " ".join(sys.argv)}}}


def write(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def protocol_sweep(device, args, nvml, warm, align):
    rank, world = dist.get_rank(), dist.get_world_size()
    algo, proto = os.environ.get("NCCL_ALGO", "default"), os.environ.get("NCCL_PROTO", "default")
    records = [env_record(device, f"protocol_{algo}_{proto}", args)]
    for op in ("all_reduce", "all_gather", "reduce_scatter"):
        for nbytes in SWEEP_BYTES:
            n = nbytes // 2
            in_n = n // world if op == "all_gather" else n
            fn, elems = coll_fn(op, in_n, n if op == "all_gather" else None, torch.bfloat16, device, world)
            dist.barrier()
            choice = nccl_choice(fn, op, rank)
            extra = {"forced": {"NCCL_ALGO": algo, "NCCL_PROTO": proto}, "dtype": "bfloat16"}
            t, c = conditioned(fn, warm.spin, args.idle_ms, args.trials, nvml, align)
            extra["input_bytes"] = in_n * 2
            nbytes = elems * 2
            records.append(coll_record(op, nbytes, "conditioned", stats(t), c, choice, extra, world, "protocol_sweep"))
            q = queued(fn, warm.spin, 20, 5, align)
            records.append(coll_record(op, nbytes, "queued", stats(q), None, choice, dict(extra, calls_per_trial=20),
                                       world, "protocol_sweep"))
            del fn
    if rank == 0:
        write(os.path.join(args.out, f"protocol_{algo}_{proto}.jsonl"), records)
        for r in records[1:]:
            print(f"{algo} {proto} {r['op']} {r['bytes']} {r['extra']['timing']}: {r['time_us']:.1f} us "
                  f"(ranks {[round(x, 1) for x in r['extra']['rank_medians_us']]}, {r['extra']['protocol']} "
                  f"{r['extra']['channels']})", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps-dir", default=HERE)
    ap.add_argument("--steps", default=",".join(cs.STEPS))
    ap.add_argument("--no-kernel-timing", dest="kernel_timing", action="store_false")
    ap.add_argument("--idle-ms", type=float, default=10.0)
    ap.add_argument("--trials", type=int, default=15)
    ap.add_argument("--protocol-sweep", action="store_true")
    args = ap.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    os.makedirs(args.out, exist_ok=True)
    if os.environ.get("NCCL_DEBUG") and not os.environ.get("NCCL_DEBUG_FILE"):
        tag = "sweep_" + os.environ.get("NCCL_PROTO", "default") if args.protocol_sweep else "steps"
        os.environ["NCCL_DEBUG_FILE"] = os.path.join(os.path.abspath(args.out),
                                                     f"nccl_{tag}_rank{os.environ.get('RANK', local)}.log")
    device = torch.device("cuda", local)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    rank = dist.get_rank()
    nvml = Nvml(local)
    warm = Warmups(device)
    tiny = torch.zeros(1, device=device, dtype=torch.float32)
    align = lambda: dist.all_reduce(tiny)  # noqa: E731  (lines the GPUs up on the device)
    if args.protocol_sweep:
        protocol_sweep(device, args, nvml, warm, align)
    else:
        for step in args.steps.split(","):
            t0 = time.time()
            out_dir = os.path.join(args.out, step)
            os.makedirs(out_dir, exist_ok=True)
            events = cs.read_trace(os.path.join(args.steps_dir, step, "rank0.json"))
            calls = cs.coll_calls(events)
            records = [env_record(device, step, args)]
            if rank == 0:
                records += gemm_records(step, events, device, args, nvml, warm)
            dist.barrier()
            records += coll_records(step, calls, device, args, nvml, warm, align)
            if args.kernel_timing:
                records += kernel_timed(step, events, calls, device, args, warm, align, out_dir)
            if rank == 0:
                write(os.path.join(out_dir, "iso_conditioned.jsonl"), records)
            print(f"{step} rank {rank}: {len(records)} records in {time.time() - t0:.1f} s", file=sys.stderr)
            torch.cuda.empty_cache()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

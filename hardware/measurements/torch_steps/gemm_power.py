"""Each captured step's GEMMs alone under sustained load, with the board's power and SM clock: the
per-kernel power record that a power-limit law needs (README, "The limit on the averaged draw").

    python3 hardware/measurements/torch_steps/gemm_power.py --out DIR [--steps tp,ddp_b25]

One GPU (cuda:0), no process group. For every distinct GEMM call of each step's rank 0 trace
(traced shapes, strides and dtype, random normal operands, as iso_conditioned.py), after a rest
(--rest-ms idle): the call back to back for --sustain-s with a CUDA event between calls, while a
host thread samples NVML (SM clock, board power as NVML averages it and its instant reading, the
total-energy counter, clock-event reasons) every ~1 ms. Per call it keeps the event times, so the
record holds the rate from rest to the power-limited steady state: `first_ms_us` (median of the
calls in the first 20 ms), `steady_us` (median of the last half), `steady_power_w` (the energy
counter's slope over the last half, and the instant readings' mean beside it), `steady_clock_mhz`,
and `bins` (per 25 ms of GPU time: mean call time and clock) for the approach to the limit.

Four kernels that are not GEMMs, the same way: `idle` (nothing running: the board's floor),
`spin_1sm` (torch.cuda._sleep, one block: the GPU awake and clocked up, one SM busy), `l2_stream`
(an elementwise multiply over 16 MiB, resident in L2: every SM busy, little HBM traffic) and
`hbm_stream` (an elementwise add over 4 GiB: every SM busy at HBM's rate).

Writes DIR/gemm_power.jsonl: one JSON object per line, `kind` "gemm" or "kernel", an "env" first.
"""
import argparse
import json
import os
import statistics
import sys
import threading
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import capture_steps as cs  # noqa: E402


class Board:
    """NVML through nvidia-ml-py, sampled in a thread on the host's perf_counter clock."""

    def __init__(self, index):
        import pynvml

        self.n = pynvml
        pynvml.nvmlInit()
        self.h = pynvml.nvmlDeviceGetHandleByIndex(index)
        self.samples = []
        self.stop = threading.Event()
        self.thread = None

    def instant_mw(self):
        try:
            fv = self.n.nvmlDeviceGetFieldValues(self.h, [self.n.NVML_FI_DEV_POWER_INSTANT])[0]
            return fv.value.uiVal if fv.nvmlReturn == 0 else None
        except (self.n.NVMLError, AttributeError):
            return None

    def read(self):
        n, h = self.n, self.h
        try:
            reasons = n.nvmlDeviceGetCurrentClocksEventReasons(h)
        except (n.NVMLError, AttributeError):
            reasons = None
        return [time.perf_counter_ns(), n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM),
                n.nvmlDeviceGetPowerUsage(h), self.instant_mw(), n.nvmlDeviceGetTotalEnergyConsumption(h), reasons]

    def _run(self):
        while not self.stop.is_set():
            self.samples.append(self.read())
            time.sleep(0.001)

    def start(self):
        self.samples, self.stop = [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def finish(self):
        self.stop.set()
        self.thread.join()
        return self.samples

    def static(self):
        n, h = self.n, self.h
        out = {"name": n.nvmlDeviceGetName(h), "power_limit_w": n.nvmlDeviceGetPowerManagementLimit(h) / 1000}
        try:
            out["max_sm_clock_mhz"] = n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_SM)
        except n.NVMLError:
            pass
        return out


def window(samples, t0_ns, t1_ns):
    """Energy-counter slope (W), mean instant power (W), median clock over host times [t0, t1]."""
    inside = [s for s in samples if t0_ns <= s[0] <= t1_ns]
    if len(inside) < 2:
        return None
    joules = (inside[-1][4] - inside[0][4]) / 1e3
    secs = (inside[-1][0] - inside[0][0]) / 1e9
    inst = [s[3] / 1e3 for s in inside if s[3] is not None]
    reasons = sorted({s[5] for s in inside if s[5] is not None})
    return {"energy_w": joules / secs if secs > 0 else None,
            "instant_w": statistics.mean(inst) if inst else None,
            "nvml_avg_w": statistics.median(s[2] / 1e3 for s in inside),
            "clock_mhz": statistics.median(s[1] for s in inside), "samples": len(inside), "reasons": reasons}


def sustained(fn, board, rest_ms, sustain_s, est_us):
    """Rest, then fn back to back for ~sustain_s with an event between calls; per-call times (us),
    the host time of the first event and the samples."""
    calls = max(20, int(sustain_s * 1e6 / max(est_us, 1.0)))
    events = [torch.cuda.Event(enable_timing=True) for _ in range(calls + 1)]
    torch.cuda.synchronize()
    board.start()
    time.sleep(rest_ms / 1e3)
    t0 = time.perf_counter_ns()
    events[0].record()
    for i in range(calls):
        fn()
        events[i + 1].record()
    torch.cuda.synchronize()
    samples = board.finish()
    times = [events[i].elapsed_time(events[i + 1]) * 1e3 for i in range(calls)]
    return times, t0, samples


def summarize(times, t0, samples):
    ends, acc = [], 0.0
    for t in times:
        acc += t
        ends.append(acc)
    total = ends[-1]
    half = [t for t, e in zip(times, ends) if e > total / 2]
    first = [t for t, e in zip(times, ends) if e <= 20e3] or times[:1]
    bins, b, lo = [], [], 0.0
    for t, e in zip(times, ends):
        b.append(t)
        if e - lo >= 25e3:
            w = window(samples, t0 + int(lo * 1e3), t0 + int(e * 1e3))
            bins.append([round(lo / 1e3, 1), round(statistics.mean(b), 2), w["clock_mhz"] if w else None])
            b, lo = [], e
    steady = window(samples, t0 + int(total / 2 * 1e3), t0 + int(total * 1e3))
    return {"calls": len(times), "span_ms": total / 1e3, "first_ms_us": statistics.median(first),
            "steady_us": statistics.median(half), "steady": steady, "bins": bins}


def gemm_rows(step, events, device, args, board, seen):
    rows = []
    for (name, dims, strides, types), count in cs.gemm_calls(events):
        key = json.dumps([name, dims, strides, types])
        if key in seen:
            seen[key]["steps"].append(step)
            continue
        dt = cs.torch_dtype(types[-1])
        ops = [cs.make_operand(d, s, dt, device) for d, s in zip(dims, strides)]
        fn = cs.run_gemm_call(name, ops)
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        m, n, k = cs.gemm_mnk(name, dims)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        est = start.elapsed_time(end) * 1e3
        times, t0, samples = sustained(fn, board, args.rest_ms, args.sustain_s, est)
        row = {"kind": "gemm", "steps": [step], "op": name, "dims": dims, "strides": strides,
               "dtype": cs.dtype_name(types[-1]), "m": m, "n": n, "k": k, "count_in_step": count,
               "flop": 2 * m * n * k}
        row.update(summarize(times, t0, samples))
        row["steady_tflops"] = row["flop"] / row["steady_us"] / 1e6
        if row["steady"] and row["steady"]["energy_w"]:
            row["steady_pj_per_flop"] = row["steady"]["energy_w"] / (row["steady_tflops"] * 1e12) * 1e12
        seen[key] = row
        rows.append(row)
        print(f"{step} {m}x{n}x{k} {row['dtype']}: first {row['first_ms_us']:.0f} us, steady {row['steady_us']:.0f} us, "
              f"{row['steady']}", file=sys.stderr)
        del ops, fn
        torch.cuda.empty_cache()
    return rows


def kernel_rows(device, args, board):
    small = torch.ones(4 << 20, device=device, dtype=torch.float32)   # 16 MiB, stays in L2
    big = torch.ones(1 << 30, device=device, dtype=torch.float32)     # 4 GiB
    kernels = {"idle": (None, 0), "spin_1sm": (lambda: torch.cuda._sleep(100_000), 0),
               "l2_stream": (lambda: small.mul_(1.0), 2 * small.numel() * 4),
               "hbm_stream": (lambda: big.add_(1.0), 2 * big.numel() * 4)}
    rows = []
    for name, (fn, nbytes) in kernels.items():
        if fn is None:
            torch.cuda.synchronize()
            board.start()
            time.sleep(args.rest_ms / 1e3 + args.sustain_s)
            samples = board.finish()
            s = samples[len(samples) // 2]
            rows.append({"kind": "kernel", "name": name, "steady": window(samples, s[0], samples[-1][0])})
            continue
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times, t0, samples = sustained(fn, board, args.rest_ms, args.sustain_s, start.elapsed_time(end) * 1e3)
        row = {"kind": "kernel", "name": name, "bytes_per_call": nbytes}
        row.update(summarize(times, t0, samples))
        if nbytes:
            row["steady_gbps"] = nbytes / row["steady_us"] / 1e3
        rows.append(row)
        print(f"{name}: steady {row['steady_us']:.1f} us {row['steady']}", file=sys.stderr)
    del small, big
    torch.cuda.empty_cache()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps-dir", default=HERE)
    ap.add_argument("--steps", default=",".join(cs.STEPS))
    ap.add_argument("--rest-ms", type=float, default=300.0)
    ap.add_argument("--sustain-s", type=float, default=1.2)
    args = ap.parse_args()
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    board = Board(0)
    os.makedirs(args.out, exist_ok=True)
    props = torch.cuda.get_device_properties(device)
    rows = [{"kind": "env", "device": props.name, "sms": props.multi_processor_count, "torch": torch.__version__,
             "cuda": torch.version.cuda, "rest_ms": args.rest_ms, "sustain_s": args.sustain_s,
             "board": board.static(), "command": " ".join(sys.argv)}]
    t_start = time.time()
    rows += kernel_rows(device, args, board)
    seen = {}
    for step in args.steps.split(","):
        events = cs.read_trace(os.path.join(args.steps_dir, step, "rank0.json"))
        rows += gemm_rows(step, events, device, args, board, seen)
    rows += kernel_rows(device, args, board)  # again at the end: the board's drift over the run
    with open(os.path.join(args.out, "gemm_power.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} rows in {time.time() - t_start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

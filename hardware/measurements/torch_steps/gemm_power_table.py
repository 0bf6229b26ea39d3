"""Each step's traced GEMM kernels against the same GEMM alone, rested (the conditioned record) and
at the board's power limit (gemm_power.py's steady state): which of the two the step ran at.

    python3 hardware/measurements/torch_steps/gemm_power_table.py [gemm_power/gemm_power.jsonl]

A GEMM kernel of rank 0's trace is matched to its aten op by the External id both carry, and to
the records by (m, n, k, dtype). Per step: the
GEMMs matched, the count-weighted mean of traced / rested and traced / steady, and the mean
|error| each would give as a per-GEMM prediction (the floor a model with that isolated time
reaches). Then the steady state's power figures per GEMM.
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import trace_calls as cs  # noqa: E402


def traced_gemms(path):
    events = cs.read_trace(path)
    ops = {}
    for e in events:
        if e.get("cat") == "cpu_op" and e.get("name") in cs.GEMM_OPS:
            a = e.get("args", {})
            dims, types = a.get("Input Dims"), a.get("Input type")
            nin = 3 if e["name"] in ("aten::addmm", "aten::baddbmm") else 2
            if not dims or not types or len(dims) < nin or cs.dtype_name(types[nin - 1]) is None:
                continue
            ops[a.get("External id")] = cs.gemm_mnk(e["name"], dims[:nin]) + (cs.dtype_name(types[nin - 1]),)
    out = []
    for e in events:  # a kernel carries its launching op's External id (cudaLaunchKernel or cuLaunchKernelEx)
        if e.get("cat") == "kernel" and e.get("args", {}).get("External id") in ops:
            out.append((ops[e["args"]["External id"]], e["dur"]))
    return out


def records(path):
    by = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") == "iso_gemm" and r.get("extra", {}).get("timing") == "conditioned":
            by[(r["m"], r["n"], r["k"], r["dtype"])] = r["time_us"]
    return by


def main():
    power_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "gemm_power", "gemm_power.jsonl")
    rows = [json.loads(x) for x in open(power_path)]
    steady, power = {}, {}
    for r in rows:
        if r["kind"] == "gemm":
            key = (r["m"], r["n"], r["k"], r["dtype"])
            steady.setdefault(key, []).append(r["steady_us"])
            power.setdefault(key, []).append(r)
    steady = {k: statistics.mean(v) for k, v in steady.items()}
    print("| step | GEMMs matched | traced / rested | traced / at the limit | MAE rested | MAE at the limit |")
    print("|---|---|---|---|---|---|")
    for step in cs.STEPS:
        rest = records(os.path.join(HERE, step, "iso_conditioned.jsonl"))
        pairs = [(t, rest[k], steady[k]) for k, t in traced_gemms(os.path.join(HERE, step, "rank0.json"))
                 if k in rest and k in steady and t > 50]
        if not pairs:
            continue
        tr = sum(p[0] for p in pairs)
        print(f"| `{step}` | {len(pairs)} | {tr / sum(p[1] for p in pairs):.3f} | {tr / sum(p[2] for p in pairs):.3f} | "
              f"{100 * statistics.mean(abs(p[1] / p[0] - 1) for p in pairs):.1f}% | "
              f"{100 * statistics.mean(abs(p[2] / p[0] - 1) for p in pairs):.1f}% |")
    print()
    print("| GEMM | dtype | first 20 ms (us) | at the limit (us) | ratio | TFLOP/s at the limit | SM clock (MHz) | "
          "instant power (W) | pJ per FLOP above the idle board |")
    print("|---|---|---|---|---|---|---|---|---|")
    idle = next(r for r in rows if r["kind"] == "kernel" and r["name"] == "idle")["steady"]["instant_w"]
    for key in sorted(power, key=lambda k: -k[0] * k[1] * k[2]):
        rs = power[key]
        if rs[0]["steady_us"] < 100:
            continue
        first = statistics.mean(r["first_ms_us"] for r in rs)
        st = statistics.mean(r["steady_us"] for r in rs)
        inst = statistics.mean(r["steady"]["instant_w"] for r in rs)
        tflops = rs[0]["flop"] / st / 1e6
        print(f"| {key[0]}x{key[1]}x{key[2]} | {key[3]} | {first:.0f} | {st:.0f} | {st / first:.3f} | {tflops:.0f} | "
              f"{statistics.median(r['steady']['clock_mhz'] for r in rs):.0f} | {inst:.0f} | "
              f"{(inst - idle) / (tflops * 1e12) * 1e12:.3f} |")
    for r in rows:
        if r["kind"] == "kernel":
            s = r["steady"]
            extra = f", {r['steady_gbps']:.0f} GB/s" if r.get("steady_gbps") else ""
            print(f"- {r['name']}: instant {s['instant_w']:.0f} W, clock {s['clock_mhz']:.0f} MHz{extra}")


if __name__ == "__main__":
    main()

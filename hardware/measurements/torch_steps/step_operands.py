"""Isolated GEMMs on a training step's own operands.

A GEMM timed alone on random normal operands draws more power than the same GEMM on the step's
weights, activations and gradients (smaller values, fewer toggling bits), and runs slower: the
records made that way predict steps slow. Here one unprofiled step runs under a dispatch mode that
keeps a copy of the inputs of the first call of every distinct GEMM (aten mm, addmm, bmm, baddbmm,
_scaled_mm, as the profiler's trace names them: `linear` and `matmul` reach the dispatcher as
these), with the call's shapes, strides and dtypes; each is then timed alone with those operands.
"""
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from trace_calls import gemm_mnk

# The dispatcher's GEMM overloads and the name the profiler's trace gives each.
GEMM_OVERLOADS = {"mm": "aten::mm", "addmm": "aten::addmm", "bmm": "aten::bmm", "baddbmm": "aten::baddbmm",
                  "_scaled_mm": "aten::_scaled_mm"}
# How many leading tensor arguments are the product's operands (addmm's and baddbmm's bias first).
GEMM_INPUTS = {"aten::mm": 2, "aten::addmm": 3, "aten::bmm": 2, "aten::baddbmm": 3, "aten::_scaled_mm": 2}
DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}


def dtype_of(t):
    if t.dtype in DTYPE_NAMES:
        return DTYPE_NAMES[t.dtype]
    return "fp8" if "float8" in str(t.dtype) else str(t.dtype)


def copy_keeping_layout(t):
    """A copy with the same sizes and strides (a transposed or sliced view stays one), or a dense
    copy where the strides overlap (an expanded bias); the second item says which."""
    try:
        c = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device)
        c.copy_(t)
        return c, True
    except RuntimeError:
        return t.clone(), False


def storage_bytes(t):
    if t.numel() == 0:
        return 0
    span = 1 + sum((d - 1) * s for d, s in zip(t.shape, t.stride()) if d > 0)
    return span * t.element_size()


class GemmOperandCapture(TorchDispatchMode):
    """Keeps the first call of every distinct (op, shapes, strides, dtypes) GEMM with copies of its
    tensor arguments, up to `budget_bytes` of copies in all (calls past it are counted, not kept)."""

    def __init__(self, budget_bytes):
        super().__init__()
        self.budget_bytes, self.used_bytes = budget_bytes, 0
        self.calls = {}  # key -> {"name", "func", "args", "kwargs", "dims", "strides", "dtype", ...}
        self.seen = {}  # key -> how many calls of it the step made
        self.skipped = {"over_budget": 0, "not_plain_tensor": 0, "copy_failed": 0}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        parts = str(func).split(".")  # "aten.mm.default"
        name = GEMM_OVERLOADS.get(parts[1]) if len(parts) == 3 and parts[0] == "aten" and parts[2] == "default" else None
        if name is not None:
            try:
                self._keep(name, func, args, kwargs)
            except Exception:  # the step itself must go on whatever the copy does
                self.skipped["copy_failed"] += 1
        return func(*args, **kwargs)

    def _keep(self, name, func, args, kwargs):
        nin = GEMM_INPUTS[name]
        ins = list(args[:nin])
        if any(type(t) is not torch.Tensor for t in ins):
            self.skipped["not_plain_tensor"] += 1
            return
        key = (name, tuple(tuple(t.shape) for t in ins), tuple(tuple(t.stride()) for t in ins),
               tuple(str(t.dtype) for t in ins))
        self.seen[key] = self.seen.get(key, 0) + 1
        if key in self.calls:
            return
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
        need = sum(storage_bytes(t) for t in tensors)
        if self.used_bytes + need > self.budget_bytes:
            self.skipped["over_budget"] += 1
            return
        same_layout = True

        def keep(a):
            nonlocal same_layout
            if not isinstance(a, torch.Tensor):
                return a
            c, kept = copy_keeping_layout(a)
            same_layout &= kept
            return c

        self.used_bytes += need
        self.calls[key] = {"name": name, "func": func, "args": [keep(a) for a in args],
                           "kwargs": {k: keep(v) for k, v in kwargs.items()},
                           "dims": [list(t.shape) for t in ins], "strides": [list(t.stride()) for t in ins],
                           "dtype": dtype_of(ins[-1]), "same_layout": same_layout,
                           "operand_stats": [operand_stats(t) for t in ins]}


def operand_stats(t):
    """What makes a GEMM draw less power than on random normal data: the values' spread, the share
    of zeros and of non-finite values (statistics of the finite ones; at most 2^22 elements)."""
    flat = t.detach().reshape(-1)
    if flat.numel() > (1 << 22):
        flat = flat[:: flat.numel() // (1 << 22) + 1]
    f = flat.float()
    finite = torch.isfinite(f)
    g = f[finite]
    return {"std": float(g.std()) if g.numel() > 1 else None, "abs_mean": float(g.abs().mean()) if g.numel() else None,
            "zero_fraction": float((f == 0).float().mean()), "nonfinite_fraction": float((~finite).float().mean())}


def step_operand_records(capture, trace_counts, timed_us, cus, step):
    """One iso_gemm record per (m, n, k, dtype), `extra.operands: "step"`, the time the calls'
    count-weighted mean of their medians (the count from the trace where it has the call, else from
    the captured step), each layout in extra.layouts.

    trace_counts: {(name, dims, strides): calls of that layout in the profiled step}."""
    by_shape = {}
    for key, call in capture.calls.items():
        fn = lambda c=call: c["func"](*c["args"], **c["kwargs"])
        med, lo, hi, n = timed_us(fn)
        m, nn_, k = gemm_mnk(call["name"], call["dims"])
        tkey = (call["name"], json_key(call["dims"]), json_key(call["strides"]))
        count = trace_counts.get(tkey)
        by_shape.setdefault((m, nn_, k, call["dtype"]), []).append({
            "op": call["name"], "dims": call["dims"], "strides": call["strides"],
            "count": count if count is not None else capture.seen[key], "in_trace": count is not None,
            "same_layout": call["same_layout"], "operand_stats": call["operand_stats"],
            "median_us": med, "min_us": lo, "max_us": hi, "trials": n})
    out = []
    for (m, n, k, dt), layouts in sorted(by_shape.items()):
        total = sum(l["count"] for l in layouts)
        t = sum(l["median_us"] * l["count"] for l in layouts) / total
        lo = min(l["min_us"] for l in layouts)
        hi = max(l["max_us"] for l in layouts)
        out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm",
                    "tag": f"{step}_{m}x{n}x{k}_{dt}_stepops", "m": m, "n": n, "k": k, "dtype": dt,
                    "cus": cus, "time_us": t, "spread_us": hi - lo,
                    "trials": sum(l["trials"] for l in layouts),
                    "extra": {"min_us": lo, "max_us": hi, "source": "torch", "step": step, "operands": "step",
                              "calls_in_step": total, "tflops": 2 * m * n * k / t / 1e6, "layouts": layouts}})
    return out


def json_key(nested):
    return tuple(tuple(x) if isinstance(x, (list, tuple)) else x for x in nested)

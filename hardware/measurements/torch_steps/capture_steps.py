"""Capture one real training step per run on 2+ GPUs: every rank's Kineto trace, the unprofiled
step time, and the isolated records the step's own GEMMs and collectives need.

Run one step kind per torchrun (run_steps.sh does this for every kind), e.g. on 2 x H200:

    NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc_per_node 2 \
        hardware/measurements/torch_steps/capture_steps.py --step ddp_b25 --out DIR/ddp_b25

Steps (bf16 unless the name says otherwise; AdamW; one input batch per rank):
  ddp_b25             2 LLaMA-style decoder layers (hidden 4096, 32 heads, SwiGLU 11008, 4096
                      tokens) under DistributedDataParallel, bucket_cap_mb=25: gradient
                      all-reduces of each bucket beside the rest of the backward pass
  ddp_b100            the same with bucket_cap_mb=100 (fewer, larger buckets)
  fsdp_w4k            4 decoder layers (hidden 4096) under FSDP2 (fully_shard per layer),
                      reshard_after_forward=True: all-gathers again in backward
  fsdp_w8k            2 decoder layers (hidden 8192, 64 heads, SwiGLU 28672), reshard True
  fsdp_w4k_noreshard  fsdp_w4k with reshard_after_forward=False: no all-gathers in backward
  tp                  4 tensor-parallel MLP blocks (hidden 8192, ffn 28672 split over the
                      GPUs, 8192 tokens), an all-reduce after each block forward and before it
                      in backward (Megatron's f/g)
  sp                  the same blocks sequence-parallel: the tokens sharded over the GPUs, an
                      all-gather before each block and a reduce-scatter after it (and the
                      reverse pair in backward)
  moe                 2 MoE layers (hidden 4096, 8 experts of SwiGLU 14336, 4 per GPU, top-2,
                      capacity factor 1, 8192 tokens per GPU): router, all_to_all_single
                      dispatch, one GEMM pair per local expert, all_to_all_single combine
  tp_fp16             tp in fp16 as PyTorch's mixed precision trains it: fp32 master weights
                      and AdamW state, the blocks under torch.autocast(float16) (every GEMM and
                      all-reduce in fp16), the loss scaled by torch.amp.GradScaler (fp16
                      gradients of a plain fp16 model underflow to zero, and GradScaler refuses
                      to unscale fp16 gradients); summary.json says whether the weights stayed
                      finite and how many steps the scaler skipped

Per step, in DIR:
  rank<r>.json      the profiler's Chrome trace of ONE step (after 5 unprofiled warm-up steps and
                    one profiled warm-up step), record_shapes=True, CUDA sync events on when this
                    torch has them (summary.json says whether they were)
  timing.json       every rank's unprofiled step times (CUDA events around 20 steps, each after a
                    barrier) and their medians
  iso_torch.jsonl   c3sim measurement records (schema 1, workloads/measurement.h) for this step:
                    every distinct aten GEMM call of rank 0's trace (same shapes, strides and
                    dtype) timed alone on one GPU twice, on random normal operands
                    (extra.operands "random") and on the step's own operands (extra.operands
                    "step": step_operands.py copies them during one more unprofiled step), and
                    every distinct collective of the trace timed alone over all GPUs, with what
                    NCCL ran for it (extra.algorithm, protocol, channels, from its log)
  nccl_rank<r>.log  each rank's NCCL log when NCCL_DEBUG is set (run_steps.sh sets INFO with
                    the INIT and TUNING subsystems): the communicators' tuning tables and, on
                    rank 0, one line per collective with its algorithm, protocol and channels
  nccl_step.json    rank 0's lines of the recorded step, parsed (../nccl_protocols/nccl_log.py),
                    with the byte range of the log they came from, the tuning tables and the
                    channel counts
  summary.json      per rank: kernel count, NCCL kernel names, cuda_sync events by kind, the
                    profiler settings that were in force, the log's byte offsets around the
                    recorded step, what the step-operand capture kept; with loss scaling its
                    scale, skipped steps and whether every weight stayed finite
  clocks_rank<r>.json  with --clock-samples: this rank's GPU SM clock and board power sampled
                    through NVML (clock_sampler.py) during the timed steps and the recorded one,
                    and every step's host time stamps on the same clock (time.time_ns())

--no-iso skips the isolated records and the step-operand copies (a trace and timing run only).
"""
import argparse
import json
import os
import statistics
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "nccl_protocols")]
import nccl_log  # noqa: E402  (../nccl_protocols/nccl_log.py)
from trace_calls import GEMM_OPS, STEPS, dtype_name, gemm_mnk, read_trace  # noqa: E402,F401
import step_operands  # noqa: E402

WARMUP_STEPS = 5
TIMED_STEPS = 20


# ----------------------------------------------------------------------------- models


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, 1e-5)


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.out = nn.Linear(hidden, hidden, bias=False)
        self.mlp_norm = RMSNorm(hidden)
        self.gate_up = nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.attn_norm(x)).view(b, s, 3, self.heads, h // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                           is_causal=True)
        x = x + self.out(a.transpose(1, 2).reshape(b, s, h))
        g, u = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


class AllReduceForward(torch.autograd.Function):
    """Megatron's g: all-reduce the row-parallel output, pass the gradient through."""

    @staticmethod
    def forward(ctx, x):
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class AllReduceBackward(torch.autograd.Function):
    """Megatron's f: identity forward, all-reduce the input gradient."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous()
        dist.all_reduce(grad)
        return grad


def _all_gather_rows(x):
    world = dist.get_world_size()
    out = torch.empty((x.shape[0] * world,) + tuple(x.shape[1:]), device=x.device, dtype=x.dtype)
    dist.all_gather_into_tensor(out, x.contiguous())
    return out


def _reduce_scatter_rows(x):
    world = dist.get_world_size()
    out = torch.empty((x.shape[0] // world,) + tuple(x.shape[1:]), device=x.device, dtype=x.dtype)
    dist.reduce_scatter_tensor(out, x.contiguous())
    return out


class GatherSequence(torch.autograd.Function):
    """Sequence parallel entry: all-gather the token shards; backward reduce-scatters."""

    @staticmethod
    def forward(ctx, x):
        return _all_gather_rows(x)

    @staticmethod
    def backward(ctx, grad):
        return _reduce_scatter_rows(grad)


class ScatterSequence(torch.autograd.Function):
    """Sequence parallel exit: reduce-scatter the partial sums; backward all-gathers."""

    @staticmethod
    def forward(ctx, x):
        return _reduce_scatter_rows(x)

    @staticmethod
    def backward(ctx, grad):
        return _all_gather_rows(grad)


class AllToAll(torch.autograd.Function):
    """all_to_all_single with equal splits along dim 0; its gradient is the same exchange."""

    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        dist.all_to_all_single(out, x)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous()
        out = torch.empty_like(grad)
        dist.all_to_all_single(out, grad)
        return out


class TPBlock(nn.Module):
    def __init__(self, hidden, ffn, world):
        super().__init__()
        self.up = nn.Linear(hidden, ffn // world, bias=False)
        self.down = nn.Linear(ffn // world, hidden, bias=False)

    def forward(self, x):
        y = self.down(F.gelu(self.up(AllReduceBackward.apply(x)), approximate="tanh"))
        return x + AllReduceForward.apply(y)


class SPBlock(nn.Module):
    def __init__(self, hidden, ffn, world):
        super().__init__()
        self.up = nn.Linear(hidden, ffn // world, bias=False)
        self.down = nn.Linear(ffn // world, hidden, bias=False)

    def forward(self, x_shard):
        y = self.down(F.gelu(self.up(GatherSequence.apply(x_shard)), approximate="tanh"))
        return x_shard + ScatterSequence.apply(y)


class MoELayer(nn.Module):
    """Expert-parallel MoE: each GPU holds experts/world experts. Routing is top-k with a fixed
    capacity per (expert, source GPU), so every all-to-all moves equal splits and nothing waits for
    the host (dropped assignments go to a spare row that is thrown away)."""

    def __init__(self, hidden, ffn, experts, topk, tokens, world):
        super().__init__()
        self.experts, self.topk, self.world = experts, topk, world
        self.local = experts // world
        self.capacity = tokens * topk // experts
        self.norm = RMSNorm(hidden)
        self.router = nn.Linear(hidden, experts, bias=False)
        self.gate_up = nn.ModuleList(nn.Linear(hidden, 2 * ffn, bias=False) for _ in range(self.local))
        self.down = nn.ModuleList(nn.Linear(ffn, hidden, bias=False) for _ in range(self.local))

    def forward(self, x):
        t, h = x.shape
        e, c = self.experts, self.capacity
        xn = self.norm(x)
        probs = torch.softmax(self.router(xn).float(), dim=-1)
        gate, eid = probs.topk(self.topk, dim=-1)  # [t, k]
        gate = (gate / gate.sum(-1, keepdim=True)).to(x.dtype).reshape(-1)
        eid = eid.reshape(-1)
        tok = torch.arange(t, device=x.device).repeat_interleave(self.topk)
        onehot = F.one_hot(eid, e)
        pos = (onehot.cumsum(0) - 1).gather(1, eid[:, None]).squeeze(1)
        dest = torch.where(pos < c, eid * c + pos, torch.full_like(pos, e * c))
        buf = torch.zeros(e * c + 1, h, device=x.device, dtype=x.dtype).index_add(0, dest, xn[tok])
        recv = AllToAll.apply(buf[: e * c])  # rows grouped [source gpu][local expert][slot]
        recv = recv.view(self.world, self.local, c, h)
        outs = []
        for j in range(self.local):
            tokens_j = recv[:, j].reshape(self.world * c, h)
            g, u = self.gate_up[j](tokens_j).chunk(2, dim=-1)
            outs.append(self.down[j](F.silu(g) * u).view(self.world, 1, c, h))
        back = AllToAll.apply(torch.cat(outs, dim=1).reshape(e * c, h))
        back = torch.cat([back, back.new_zeros(1, h)], dim=0)
        y = back[dest] * gate[:, None]
        return x + torch.zeros_like(x).index_add(0, tok, y)


def decoder_stack(layers, hidden, heads, ffn, dtype, device):
    return nn.Sequential(*[DecoderLayer(hidden, heads, ffn) for _ in range(layers)]).to(device=device, dtype=dtype)


def build(step, rank, world, device):
    """The model (wrapped for its parallelism), the optimizer and this rank's input."""
    torch.manual_seed(0)
    bf16 = torch.bfloat16
    if step in ("ddp_b25", "ddp_b100"):
        from torch.nn.parallel import DistributedDataParallel as DDP
        model = DDP(decoder_stack(2, 4096, 32, 11008, bf16, device), device_ids=[device.index],
                    bucket_cap_mb=25 if step == "ddp_b25" else 100)
        shape, dtype = (1, 4096, 4096), bf16
    elif step.startswith("fsdp"):
        from torch.distributed.fsdp import fully_shard
        reshard = step != "fsdp_w4k_noreshard"
        if step == "fsdp_w8k":
            model, hidden = decoder_stack(2, 8192, 64, 28672, bf16, device), 8192
        else:
            model, hidden = decoder_stack(4, 4096, 32, 11008, bf16, device), 4096
        for layer in model:
            fully_shard(layer, reshard_after_forward=reshard)
        fully_shard(model, reshard_after_forward=reshard)
        shape, dtype = (1, 4096, hidden), bf16
    elif step in ("tp", "tp_fp16"):
        # fp16 trains on fp32 master weights under autocast (train_step): AdamW's state and its
        # eps (1e-8) are below fp16's range, and GradScaler unscales fp32 gradients only.
        dtype = torch.float16 if step == "tp_fp16" else bf16
        weights = torch.float32 if step == "tp_fp16" else bf16
        model = nn.Sequential(*[TPBlock(8192, 28672, world) for _ in range(4)]).to(device=device, dtype=weights)
        shape = (1, 8192, 8192)
    elif step == "sp":
        dtype = bf16
        model = nn.Sequential(*[SPBlock(8192, 28672, world) for _ in range(4)]).to(device=device, dtype=dtype)
        shape = (8192 // world, 8192)
    elif step == "moe":
        dtype = bf16
        model = nn.Sequential(*[MoELayer(4096, 14336, 8, 2, 8192, world) for _ in range(2)])
        model = model.to(device=device, dtype=dtype)
        shape = (8192, 4096)
    else:
        raise ValueError(f"unknown step {step}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, foreach=True)
    gen = torch.Generator(device=device).manual_seed(1000 + rank)
    x = torch.randn(shape, device=device, dtype=dtype, generator=gen)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None
    return model, opt, x, scaler


def train_step(model, opt, x, scaler=None):
    """One step; with a scaler, the forward under autocast(float16) and the loss scaled."""
    if scaler is None:
        loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
    else:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x).float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    opt.zero_grad(set_to_none=True)


class LossScaleLog:
    """Scale after every step (read after the step's synchronize, outside its timed span): a step
    the scaler skipped for an inf or NaN gradient halves the scale."""

    def __init__(self, scaler):
        self.scaler, self.scales, self.skipped = scaler, [], 0

    def after_step(self):
        if self.scaler is None:
            return
        scale = self.scaler.get_scale()
        if self.scales and scale < self.scales[-1]:
            self.skipped += 1
        self.scales.append(scale)

    def summary(self, model):
        finite = all(bool(torch.isfinite(p).all()) for p in model.parameters())
        return {"scaler": "torch.amp.GradScaler", "autocast": "float16",
                "weights": str(next(model.parameters()).dtype), "scale_after_first_step": self.scales[0],
                "final_scale": self.scaler.get_scale(),
                "steps_logged": len(self.scales), "skipped_steps": self.skipped, "weights_finite": finite}


# ----------------------------------------------------------------------------- timing


def timed_us(fn, reps=20, warmups=5):
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times), min(times), max(times), len(times)


def profiler_config():
    """CUDA sync events (stream waits, event syncs) on when this torch has them; which, and why not."""
    try:
        cfg = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
        return cfg, {"enable_cuda_sync_events": True}
    except Exception as e:  # an older or newer torch without the field
        return None, {"enable_cuda_sync_events": False, "why": repr(e)}


def nccl_log_path():
    """This rank's NCCL debug log (NCCL_DEBUG_FILE), or None when NCCL logs nowhere we can read."""
    path = os.environ.get("NCCL_DEBUG_FILE")
    return path if path and os.environ.get("NCCL_DEBUG") else None


def log_offset():
    """The byte size of this rank's NCCL log now: NCCL line-buffers it, so what the host has
    enqueued so far is in the file, and the lines between two offsets are those collectives'."""
    path = nccl_log_path()
    return os.path.getsize(path) if path and os.path.exists(path) else None


def profile_one_step(step, path, marks):
    cfg, settings = profiler_config()
    kwargs = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                  schedule=schedule(wait=0, warmup=1, active=1),
                  on_trace_ready=lambda p: p.export_chrome_trace(path))
    if cfg is not None:
        kwargs["experimental_config"] = cfg
    try:
        prof = profile(**kwargs)
    except TypeError as e:
        kwargs.pop("experimental_config", None)
        settings = {"enable_cuda_sync_events": False, "why": repr(e)}
        prof = profile(**kwargs)
    # The barrier that lines the ranks up runs before the recorded step's span opens (prof.step()),
    # so the recorded step holds the training step's own kernels only.
    with prof:
        step()  # the profiler's warm-up step, discarded
        torch.cuda.synchronize()
        dist.barrier()
        torch.cuda.synchronize()
        prof.step()
        marks["recorded_step_start"] = log_offset()
        marks["recorded_step_host_ns"] = [time.time_ns()]
        step()  # the recorded step
        torch.cuda.synchronize()
        marks["recorded_step_host_ns"].append(time.time_ns())
        marks["recorded_step_end"] = log_offset()
        prof.step()
    settings.update({"record_shapes": True, "schedule": "wait=0, warmup=1, active=1"})
    return settings


# ----------------------------------------------------------------------------- trace reading


def torch_dtype(t):
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype_name(t)]


def coll_op(name):
    s = (name or "").lower()
    if "allreduce" in s or "all_reduce" in s:
        return "all_reduce"
    if "reduce_scatter" in s or "reducescatter" in s:
        return "reduce_scatter"
    if "to_all" in s or "alltoall" in s:
        return "all_to_all"
    if "allgather" in s or "all_gather" in s:
        return "all_gather"
    return None


def trace_summary(events):
    kernels = [e for e in events if e.get("cat") == "kernel"]
    sync = {}
    for e in events:
        if e.get("cat") == "cuda_sync":
            sync[e.get("name", "")] = sync.get(e.get("name", ""), 0) + 1
    nccl = {}
    for e in kernels:
        if "nccl" in e.get("name", "").lower():
            base = e["name"].split("(")[0]
            nccl[base] = nccl.get(base, 0) + 1
    steps = [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")]
    span = None
    if kernels:
        span = max(e["ts"] + e.get("dur", 0) for e in kernels) - min(e["ts"] for e in kernels)
    return {"kernels": len(kernels), "cuda_sync": sync, "nccl_kernels": nccl,
            "streams": sorted({e.get("args", {}).get("stream") for e in kernels if "args" in e}, key=str),
            "profiler_steps": [e["name"] for e in steps], "kernel_span_us": span}


def gemm_calls(events):
    """Distinct (op, dims, strides, types) GEMM calls of the trace, with how often each ran."""
    calls = {}
    for e in events:
        if e.get("cat") != "cpu_op" or e.get("name") not in GEMM_OPS:
            continue
        args = e.get("args", {})
        dims, types = args.get("Input Dims"), args.get("Input type")
        strides = args.get("Input Strides")
        if not dims or not types:
            continue
        nin = 3 if e["name"] in ("aten::addmm", "aten::baddbmm") else 2
        if len(dims) < nin or any(not d for d in dims[:nin]) or dtype_name(types[nin - 1]) is None:
            continue
        st = [list(s) if s else None for s in strides[:nin]] if strides else [None] * nin
        key = json.dumps([e["name"], dims[:nin], st, types[:nin]])
        calls[key] = calls.get(key, 0) + 1
    return [(json.loads(k), n) for k, n in sorted(calls.items())]


def coll_calls(events):
    """Distinct collectives of the trace from its NCCL kernels' message arguments."""
    calls = {}
    for e in events:
        if e.get("cat") != "kernel" or "nccl" not in e.get("name", "").lower():
            continue
        args = e.get("args", {})
        op = coll_op(args.get("Collective name")) or coll_op(e["name"].split("(")[0])
        key = json.dumps([op, args.get("Collective name"), args.get("In msg nelems"),
                          args.get("Out msg nelems"), args.get("dtype"), args.get("Group size")])
        ent = calls.setdefault(key, {"count": 0, "kernels": {}})
        ent["count"] += 1
        base = e["name"].split("(")[0]
        ent["kernels"][base] = ent["kernels"].get(base, 0) + 1
    return [(json.loads(k), v) for k, v in sorted(calls.items())]


# ----------------------------------------------------------------------------- isolated records


def make_operand(dims, strides, dtype, device):
    if strides is None or len(strides) != len(dims) or any(d <= 0 for d in dims):
        return torch.randn(dims, device=device, dtype=dtype)
    # The traced layout (a transposed view is a GEMM's other operand order): random values over
    # the whole storage the strides span, viewed with the trace's strides.
    span = 1 + sum((d - 1) * s for d, s in zip(dims, strides))
    return torch.randn(span, device=device, dtype=dtype).as_strided(dims, strides)


def run_gemm_call(name, ops):
    if name == "aten::mm":
        return lambda: torch.mm(ops[0], ops[1])
    if name == "aten::addmm":
        return lambda: torch.addmm(ops[0], ops[1], ops[2])
    if name == "aten::bmm":
        return lambda: torch.bmm(ops[0], ops[1])
    return lambda: torch.baddbmm(ops[0], ops[1], ops[2])


def iso_gemms(events, device, step):
    """One record per (m, n, k, dtype): the traced calls of that product replayed alone, the time
    the calls' count-weighted mean of their medians (layouts that differ only in strides are the
    same product to c3sim; each layout's own median is in extra.layouts)."""
    props = torch.cuda.get_device_properties(device)
    by_shape = {}
    for (name, dims, strides, types), count in gemm_calls(events):
        dt = torch_dtype(types[-1])
        ops = [make_operand(d, s, dt, device) for d, s in zip(dims, strides)]
        med, lo, hi, n = timed_us(run_gemm_call(name, ops))
        m, nn_, k = gemm_mnk(name, dims)
        key = (m, nn_, k, dtype_name(types[-1]))
        by_shape.setdefault(key, []).append({"op": name, "dims": dims, "strides": strides, "count": count,
                                             "median_us": med, "min_us": lo, "max_us": hi, "trials": n})
        del ops
    out = []
    for (m, n, k, dt), layouts in sorted(by_shape.items()):
        total = sum(l["count"] for l in layouts)
        t = sum(l["median_us"] * l["count"] for l in layouts) / total
        lo = min(l["min_us"] for l in layouts)
        hi = max(l["max_us"] for l in layouts)
        out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm",
                    "tag": f"{step}_{m}x{n}x{k}_{dt}", "m": m, "n": n, "k": k, "dtype": dt,
                    "cus": props.multi_processor_count, "time_us": t, "spread_us": hi - lo,
                    "trials": sum(l["trials"] for l in layouts),
                    "extra": {"min_us": lo, "max_us": hi, "source": "torch", "step": step, "operands": "random",
                              "calls_in_step": total,
                              "tflops": 2 * m * n * k / t / 1e6, "layouts": layouts}})
    return out


ELEM_BYTES = {"bfloat16": 2, "half": 2, "float": 4, "float32": 4, "double": 8, "long": 8, "int": 4, "byte": 1,
              "char": 1, "float8_e4m3fn": 1}
TORCH_OF = {"bfloat16": torch.bfloat16, "half": torch.float16, "float": torch.float32, "float32": torch.float32}


def iso_colls(calls, rank, world, device, step):
    """Each distinct collective of the step alone over all GPUs, bytes as c3sim import counts them
    (all-gather output, reduce-scatter per-GPU output, all-reduce buffer, all-to-all input)."""
    out = []
    for (op, cname, in_n, out_n, dtype, group), info in calls:
        dt_key = (dtype or "").lower()
        if op is None or dt_key not in TORCH_OF or not in_n or group != world:
            if rank == 0:
                print(f"iso: skipped collective {cname} {op} {in_n}/{out_n} {dtype} group {group}",
                      file=sys.stderr)
            continue
        dt = TORCH_OF[dt_key]
        if op == "all_gather":
            src = torch.randn(in_n, device=device, dtype=dt)
            dst = torch.empty(out_n or in_n * world, device=device, dtype=dt)
            fn = lambda s=src, d=dst: dist.all_gather_into_tensor(d, s)
            elems = dst.numel()
        elif op == "reduce_scatter":
            src = torch.randn(in_n, device=device, dtype=dt)
            dst = torch.empty(in_n // world, device=device, dtype=dt)
            fn = lambda s=src, d=dst: dist.reduce_scatter_tensor(d, s)
            elems = dst.numel()
        elif op == "all_to_all":
            src = torch.randn(in_n, device=device, dtype=dt)
            dst = torch.empty_like(src)
            fn = lambda s=src, d=dst: dist.all_to_all_single(d, s)
            elems = in_n
        else:
            src = torch.randn(in_n, device=device, dtype=dt)
            dst = None
            fn = lambda s=src: dist.all_reduce(s)
            elems = in_n
        dist.barrier()
        start = log_offset()
        med, lo, hi, n = timed_us(fn)
        end = log_offset()
        nccl = None
        if rank == 0 and start is not None and end is not None:
            nccl = nccl_log.dominant_choice(nccl_log.read_range(nccl_log_path(), start, end), nccl_log.NCCL_FUNC.get(op))
        if rank == 0:
            out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_coll", "op": op, "impl": "cu",
                        "gpus": world, "bytes": elems * ELEM_BYTES[dt_key], "time_us": med, "spread_us": hi - lo,
                        "trials": n,
                        "extra": {"min_us": lo, "max_us": hi, "source": "torch", "step": step,
                                  "collective_name": cname, "in_nelems": in_n, "out_nelems": out_n,
                                  "dtype": dtype, "calls_in_step": info["count"],
                                  "kernels_in_step": info["kernels"],
                                  "nccl": nccl,
                                  "protocol": nccl["protocol"] if nccl else None,
                                  "algorithm": nccl["algorithm"] if nccl else None,
                                  "channels": nccl["channels"] if nccl else None,
                                  "note": "bytes as c3sim counts them (all-gather output, reduce-scatter "
                                          "per-GPU output, all-reduce buffer, all-to-all input)"}})
        del src, dst
    return out


# ----------------------------------------------------------------------------- main


def nccl_step_choices(marks):
    """NCCL's choice for each collective of the recorded step (rank 0's log: the communicator's rank 0
    prints them), its tuning tables and channel counts, from the whole log's init lines."""
    path = nccl_log_path()
    if path is None or marks.get("recorded_step_start") is None or marks.get("recorded_step_end") is None:
        return None
    whole = nccl_log.read_range(path)
    return {"log": os.path.basename(path), "recorded_step_bytes": [marks["recorded_step_start"],
                                                                    marks["recorded_step_end"]],
            "collectives": nccl_log.tuning_choices(nccl_log.read_range(path, marks["recorded_step_start"],
                                                                       marks["recorded_step_end"])),
            "channels_per_comm": nccl_log.channel_counts(whole), "tuning_tables": nccl_log.tuning_tables(whole)}


def capture_step_operands(step, rank, budget_gb):
    """One more unprofiled step; on rank 0 under the dispatch mode that keeps each distinct GEMM's
    first operands (step_operands.py)."""
    dist.barrier()
    torch.cuda.synchronize()
    capture = None
    if rank == 0:
        capture = step_operands.GemmOperandCapture(int(budget_gb * 2**30))
        with capture:
            step()
    else:
        step()
    torch.cuda.synchronize()
    return capture


def trace_gemm_counts(events):
    counts = {}
    for (name, dims, strides, _types), n in gemm_calls(events):
        key = (name, step_operands.json_key(dims), step_operands.json_key(strides))
        counts[key] = counts.get(key, 0) + n
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--step", choices=STEPS, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--operand-budget-gb", type=float, default=8.0,
                    help="most GPU memory the step-operand copies may take (calls past it are skipped)")
    ap.add_argument("--no-iso", dest="iso", action="store_false",
                    help="no isolated records and no step-operand copies: the trace and timing only")
    ap.add_argument("--clock-samples", action="store_true",
                    help="sample this rank's GPU SM clock and power (NVML) during the timed and recorded steps")
    args = ap.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    os.makedirs(args.out, exist_ok=True)
    if os.environ.get("NCCL_DEBUG") and not os.environ.get("NCCL_DEBUG_FILE"):
        # NCCL_DEBUG_FILE knows %h and %p, not the rank: name each rank's log here, before NCCL starts.
        os.environ["NCCL_DEBUG_FILE"] = os.path.join(os.path.abspath(args.out),
                                                     f"nccl_rank{os.environ.get('RANK', local)}.log")
    device = torch.device("cuda", local)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()
    env_keys = ("NCCL_NVLS_ENABLE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE")
    summary = {"step": args.step, "world": world, "torch": torch.__version__, "cuda": torch.version.cuda,
               "nccl": ".".join(map(str, torch.cuda.nccl.version())), "device": torch.cuda.get_device_name(device),
               "environment": {k: os.environ.get(k, "") for k in env_keys}}

    model, opt, x, scaler = build(args.step, rank, world, device)
    scale_log = LossScaleLog(scaler)

    def step():
        train_step(model, opt, x, scaler)

    for _ in range(WARMUP_STEPS):
        step()
        scale_log.after_step()
    torch.cuda.synchronize()
    sampler = start_clock_sampler(device, local) if args.clock_samples else None
    times, host_ns = [], []
    for _ in range(TIMED_STEPS):
        dist.barrier()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.time_ns()
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        host_ns.append([t0, time.time_ns()])
        times.append(start.elapsed_time(end) * 1e3)
        scale_log.after_step()

    trace = os.path.join(args.out, f"rank{rank}.json")
    marks = {}
    summary["profiler"] = profile_one_step(step, trace, marks)
    scale_log.after_step()
    if sampler is not None:
        write_clock_samples(args, rank, sampler, host_ns, times, marks)
    marks.pop("recorded_step_host_ns", None)
    summary["nccl_log_marks"] = marks
    if scaler is not None:
        summary["loss_scaling"] = scale_log.summary(model)
    gathered = [None] * world
    dist.all_gather_object(gathered, times)
    if rank == 0:
        with open(os.path.join(args.out, "timing.json"), "w") as f:
            json.dump({"step": args.step, "world": world, "torch": summary["torch"], "nccl": summary["nccl"],
                       "device": summary["device"], "timing": "CUDA events around each step, after a barrier",
                       "unprofiled_step_us_per_rank": gathered,
                       "unprofiled_step_us_median": [statistics.median(t) for t in gathered]}, f, indent=1)
        choices = nccl_step_choices(marks)
        if choices is not None:
            with open(os.path.join(args.out, "nccl_step.json"), "w") as f:
                json.dump(choices, f, indent=1)
            summary["nccl_choices"] = sorted({f"{c['func']} {c['algorithm']} {c['protocol']} {c['channels']}ch"
                                              for c in choices["collectives"]})
    print(f"{args.step} rank {rank}: median {statistics.median(times):.1f} us over {len(times)} steps",
          file=sys.stderr)

    events = read_trace(trace)
    summary["trace"] = trace_summary(events)
    if not args.iso:
        write_outputs(args, summary, [], rank, world, device)
        dist.barrier()
        dist.destroy_process_group()
        return

    # Isolated records: rank 0's trace names what to time; GEMMs on rank 0 alone, collectives on all.
    calls = [coll_calls(events) if rank == 0 else None]
    dist.broadcast_object_list(calls, src=0)
    records = []
    if rank == 0:
        try:
            records += iso_gemms(events, device, args.step)
        except Exception:
            traceback.print_exc()
    dist.barrier()
    records += iso_colls(calls[0], rank, world, device, args.step)
    write_outputs(args, summary, records, rank, world, device)

    # The step's own operands last, so that a failure here loses only their records.
    capture = None
    try:
        capture = capture_step_operands(step, rank, args.operand_budget_gb)
        if scaler is not None:
            scale_log.after_step()
            summary["loss_scaling"] = scale_log.summary(model)
    except Exception:
        traceback.print_exc()
    del model, opt, x, scaler, step
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    if capture is not None:
        summary["step_operands"] = {"distinct_gemms_kept": len(capture.calls), "copied_bytes": capture.used_bytes,
                                    "distinct_gemms_seen": len(capture.seen), "skipped": capture.skipped}
        try:
            props = torch.cuda.get_device_properties(device)
            records += step_operands.step_operand_records(capture, trace_gemm_counts(events), timed_us,
                                                          props.multi_processor_count, args.step)
        except Exception:
            traceback.print_exc()
        capture = None
    write_outputs(args, summary, records, rank, world, device)
    dist.barrier()
    dist.destroy_process_group()


def start_clock_sampler(device, local):
    """clock_sampler.py on this rank's GPU, or None (and why on stderr) where NVML cannot be read."""
    try:
        import clock_sampler

        uuid = str(torch.cuda.get_device_properties(device).uuid)
        return clock_sampler.ClockSampler(uuid if uuid.startswith("GPU-") else "GPU-" + uuid, local).start()
    except Exception:
        traceback.print_exc()
        return None


def write_clock_samples(args, rank, sampler, host_ns, times, marks):
    out = sampler.stop().result()
    out.update({"rank": rank, "timed_steps_host_ns": host_ns, "timed_steps_event_us": times,
                "recorded_step_host_ns": marks.get("recorded_step_host_ns"),
                "note": "step host stamps: time.time_ns() before the start event is recorded (the stream "
                        "idle after a barrier and a synchronize) and after the synchronize behind the end event"})
    with open(os.path.join(args.out, f"clocks_rank{rank}.json"), "w") as f:
        json.dump(out, f)


def write_outputs(args, summary, records, rank, world, device):
    """iso_torch.jsonl and summary.json (rank 0 writes; every rank sends its summary)."""
    summaries = [None] * world
    dist.all_gather_object(summaries, summary)
    if rank != 0:
        return
    props = torch.cuda.get_device_properties(device)
    env = {"schema": "c3sim.measurement", "version": 1, "kind": "env", "producer": "torch",
           "hardware": props.name, "gpus": world, "cus_per_gpu": props.multi_processor_count,
           "details": {"torch": summary["torch"], "cuda": summary["cuda"], "nccl": summary["nccl"],
                       "step": args.step, "environment": summary["environment"]}}
    with open(os.path.join(args.out, "iso_torch.jsonl"), "w") as f:
        for r in [env] + records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"per_rank": summaries}, f, indent=1)


if __name__ == "__main__":
    main()

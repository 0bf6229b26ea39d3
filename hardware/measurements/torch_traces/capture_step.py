"""Capture PyTorch profiler (Kineto) traces of small training steps on 2+ GPUs.

Run with one process per GPU, e.g. on the lent 2 x H200 machine:

    NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc_per_node 2 \
        hardware/measurements/torch_traces/capture_step.py --what fsdp --out DIR

Two steps, both bf16:
  fsdp  a 4-layer LLaMA-style decoder (hidden 4096, 32 heads, SwiGLU 11008) sharded with
        FSDP2 (fully_shard per layer): all-gathers of the next layer's weights beside this
        layer's GEMMs, reduce-scatters of gradients beside the backward GEMMs, AdamW.
  tp    a 4-block tensor-parallel MLP (hidden 8192, ffn 28672 split over the GPUs): column-
        parallel up projection, row-parallel down projection, all-reduce after each block in
        forward and before each block in backward (Megatron's f/g pair).

Per rank it writes DIR/<what>_rank<r>.json (the profiler's Chrome trace of one step, shapes
recorded) and DIR/<what>_timing.json (rank 0: the median of 10 unprofiled steps, CUDA events),
so the imported trace's own step time can be compared with an unprofiled one.

  iso   the isolated records the steps' kernels need for calibration, in c3sim's measurement
        schema (workloads/measurement.h): every GEMM of both steps (forward, input gradient,
        weight gradient of each linear) timed alone on one GPU through the same torch calls,
        and the steps' collectives (FSDP2's per-layer all-gather and reduce-scatter, the TP
        all-reduce) timed alone over all GPUs. DIR/iso_torch.jsonl (rank 0).
"""
import argparse
import json
import os
import statistics

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


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


class TPBlock(nn.Module):
    def __init__(self, hidden, ffn, world):
        super().__init__()
        self.up = nn.Linear(hidden, ffn // world, bias=False)
        self.down = nn.Linear(ffn // world, hidden, bias=False)

    def forward(self, x):
        y = self.down(F.gelu(self.up(AllReduceBackward.apply(x)), approximate="tanh"))
        return x + AllReduceForward.apply(y)


def build(what, world, device):
    torch.manual_seed(0)
    if what == "fsdp":
        from torch.distributed.fsdp import fully_shard
        layers = nn.Sequential(*[DecoderLayer(4096, 32, 11008) for _ in range(4)])
        layers = layers.to(device=device, dtype=torch.bfloat16)
        for layer in layers:
            fully_shard(layer)
        fully_shard(layers)
        shape = (1, 4096, 4096)
    else:
        layers = nn.Sequential(*[TPBlock(8192, 28672, world) for _ in range(4)])
        layers = layers.to(device=device, dtype=torch.bfloat16)
        shape = (1, 8192, 8192)
    opt = torch.optim.AdamW(layers.parameters(), lr=1e-5, foreach=True)
    x = torch.randn(shape, device=device, dtype=torch.bfloat16)
    return layers, opt, x


def step(model, opt, x):
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


FSDP_LINEARS = [(4096, 12288), (4096, 4096), (4096, 22016), (11008, 4096)]  # (in, out)
FSDP_TOKENS = 4096
TP_TOKENS = 8192


def tp_linears(world):
    return [(8192, 28672 // world), (28672 // world, 8192)]


def timed_us(fn, reps=20, warmups=5):
    for _ in range(warmups):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times), min(times), max(times), len(times)


def iso_records(rank, world, device):
    """c3sim measurement records (schema 1) of the steps' kernels, each run alone."""
    out = []
    shapes = []
    for tokens, linears, tag in ((FSDP_TOKENS, FSDP_LINEARS, "fsdp"), (TP_TOKENS, tp_linears(world), "tp")):
        for fin, fout in linears:
            shapes += [(tag, "fwd", tokens, fout, fin), (tag, "dgrad", tokens, fin, fout),
                       (tag, "wgrad", fout, fin, tokens)]
    if rank == 0:
        for tag, part, m, n, k in shapes:
            # The step's own calls: fwd = F.linear(x[m,k], W[n,k]); dgrad = dy[m,k] @ W[k,n];
            # wgrad = dy^T (dy stored [k,m]) @ x[k,n].
            if part == "fwd":
                a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
                b = torch.randn(n, k, device=device, dtype=torch.bfloat16)
                fn = lambda a=a, b=b: F.linear(a, b)
            elif part == "dgrad":
                a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
                b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
                fn = lambda a=a, b=b: a @ b
            else:
                a = torch.randn(k, m, device=device, dtype=torch.bfloat16)
                b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
                fn = lambda a=a, b=b: a.t() @ b
            med, lo, hi, n_trials = timed_us(fn)
            out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_gemm",
                        "tag": f"{tag}_{part}_{m}x{n}x{k}", "m": m, "n": n, "k": k, "dtype": "bf16",
                        "cus": torch.cuda.get_device_properties(device).multi_processor_count,
                        "time_us": med, "spread_us": hi - lo, "trials": n_trials,
                        "extra": {"min_us": lo, "max_us": hi, "source": "torch", "step": tag,
                                  "part": part, "tflops": 2 * m * n * k / med / 1e6}})
            del a, b
    dist.barrier()
    layer_params = sum(i * o for i, o in FSDP_LINEARS) + 2 * 4096
    colls = [("all_gather", layer_params * 2), ("reduce_scatter", layer_params * 2),
             ("all_reduce", TP_TOKENS * 8192 * 2)]
    for op, nbytes in colls:
        elems = nbytes // 2 // world * world
        full = torch.randn(elems, device=device, dtype=torch.bfloat16)
        shard = torch.empty(elems // world, device=device, dtype=torch.bfloat16)
        if op == "all_gather":
            fn = lambda: dist.all_gather_into_tensor(full, shard)
        elif op == "reduce_scatter":
            fn = lambda: dist.reduce_scatter_tensor(shard, full)
        else:
            fn = lambda: dist.all_reduce(full)
        med, lo, hi, n_trials = timed_us(fn)
        if rank == 0:
            out.append({"schema": "c3sim.measurement", "version": 1, "kind": "iso_coll",
                        "op": op, "impl": "cu", "gpus": world,
                        # c3sim sizes a collective by its per-GPU output: the reduce-scatter's
                        # is one reduced shard.
                        "bytes": elems * 2 // (world if op == "reduce_scatter" else 1),
                        "time_us": med, "spread_us": hi - lo, "trials": n_trials,
                        "extra": {"min_us": lo, "max_us": hi, "source": "torch",
                                  "note": "bytes = the per-GPU output (all-gather: the gathered "
                                          "tensor; reduce-scatter: one reduced block; all-reduce: "
                                          "the buffer)"}})
        del full, shard
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--what", choices=["fsdp", "tp", "iso"], required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    torch.cuda.set_device(device)
    os.makedirs(args.out, exist_ok=True)
    if args.what == "iso":
        records = iso_records(rank, world, device)
        if rank == 0:
            props = torch.cuda.get_device_properties(device)
            env = {"schema": "c3sim.measurement", "version": 1, "kind": "env", "producer": "torch",
                   "hardware": props.name, "gpus": world, "cus_per_gpu": props.multi_processor_count,
                   "details": {"torch": torch.__version__, "cuda": torch.version.cuda,
                               "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                               "environment": {"NCCL_NVLS_ENABLE": os.environ.get("NCCL_NVLS_ENABLE", "")}}}
            with open(os.path.join(args.out, "iso_torch.jsonl"), "w") as f:
                for r in [env] + records:
                    f.write(json.dumps(r, sort_keys=True) + "\n")
        dist.destroy_process_group()
        return
    model, opt, x = build(args.what, world, device)

    for _ in range(5):
        step(model, opt, x)
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        dist.barrier()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step(model, opt, x)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)

    dist.barrier()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        step(model, opt, x)
        torch.cuda.synchronize()
    prof.export_chrome_trace(os.path.join(args.out, f"{args.what}_rank{rank}.json"))
    gathered = [None] * world
    dist.all_gather_object(gathered, times)
    if rank == 0:
        with open(os.path.join(args.out, f"{args.what}_timing.json"), "w") as f:
            json.dump({"what": args.what, "world": world, "torch": torch.__version__,
                       "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                       "device": torch.cuda.get_device_name(device),
                       "unprofiled_step_us_per_rank": gathered,
                       "unprofiled_step_us_median": [statistics.median(t) for t in gathered]},
                      f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

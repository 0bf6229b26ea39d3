"""NCCL collectives alone on every GPU of one host, per protocol, algorithm and channel count.

One configuration per torchrun (NCCL reads NCCL_ALGO and NCCL_PROTO when a communicator starts);
run_sweep.sh runs them all:

    NCCL_ALGO=Ring NCCL_PROTO=LL NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING NCCL_NVLS_ENABLE=0 \\
        torchrun --standalone --nproc_per_node 2 sweep_protocols.py --config ring_ll --out DIR --channel-sweep

Per configuration: every op (all_reduce, all_gather, reduce_scatter, all_to_all, or those given)
at 4 KiB to 256 MiB in x4 steps and 512 MiB, bf16, timed alone (CUDA events around each call, 5
warm-ups, median of 20, after a barrier), rank 0's times. With --channel-sweep, all_reduce and
all_gather again at 64 KiB, 4 MiB and 256 MiB on communicators whose CTA (channel) count is forced
to 1, 2, 4, 8, 16 and 32 (ncclConfig_t minCTAs = maxCTAs, through the process group's options).

`bytes` counts as the step captures' iso_torch.jsonl does: the whole tensor (all-gather output,
reduce-scatter input, all-reduce buffer, all-to-all input). What NCCL ran is read back from its
TUNING log lines between the measurement's start and end (nccl_log.py): `extra.algorithm`,
`extra.protocol` and `extra.channels` are those (p2p operations, so all-to-all, print none: there
they are the forced values or null); `extra.forced` says what the environment or config asked for.
Writes DIR/CONFIG.jsonl (c3sim measurement records, schema 1) and keeps each rank's NCCL log as
DIR/CONFIG_rank<r>.log.
"""
import argparse
import json
import os
import statistics
import sys
import traceback

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nccl_log  # noqa: E402

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
SIZES = [4096 * 4**i for i in range(9)] + [512 * 2**20]  # 4 KiB .. 256 MiB, x4, and 512 MiB
CHANNEL_COUNTS = (1, 2, 4, 8, 16, 32)
CHANNEL_SIZES = (64 * 2**10, 4 * 2**20, 256 * 2**20)
CHANNEL_OPS = ("all_reduce", "all_gather")
# nccl-tests' bus-bandwidth factors for n ranks: the bytes each link carries per byte of `bytes`.
BUS_FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
              "reduce_scatter": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n}


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


def timed_loop_us(fn, calls, reps=10, warmups=3):
    """Per-call time of `calls` back-to-back calls between one pair of CUDA events (as nccl-tests
    times): the ranks' arrival skew and the host's launch gaps are paid once per loop, not per call."""
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        dist.barrier()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times), min(times), max(times), len(times)


def collective(op, nbytes, world, device, group):
    """The call that moves `nbytes` (the whole tensor, as above) in bf16, and its buffers."""
    n = nbytes // 2
    if op == "all_gather":
        src = torch.randn(n // world, device=device, dtype=torch.bfloat16)
        dst = torch.empty(n, device=device, dtype=torch.bfloat16)
        return lambda: dist.all_gather_into_tensor(dst, src, group=group)
    if op == "reduce_scatter":
        src = torch.randn(n, device=device, dtype=torch.bfloat16)
        dst = torch.empty(n // world, device=device, dtype=torch.bfloat16)
        return lambda: dist.reduce_scatter_tensor(dst, src, group=group)
    if op == "all_to_all":
        src = torch.randn(n, device=device, dtype=torch.bfloat16)
        dst = torch.empty_like(src)
        return lambda: dist.all_to_all_single(dst, src, group=group)
    buf = torch.randn(n, device=device, dtype=torch.bfloat16)
    return lambda: dist.all_reduce(buf, group=group)


def log_path():
    return os.environ.get("NCCL_DEBUG_FILE") if os.environ.get("NCCL_DEBUG") else None


def log_offset():
    path = log_path()
    return os.path.getsize(path) if path and os.path.exists(path) else None


def measure(op, nbytes, rank, world, device, group, config, forced, loop=0):
    fn = collective(op, nbytes, world, device, group)
    dist.barrier(group=group)
    start = log_offset()
    med, lo, hi, n = timed_loop_us(fn, loop) if loop else timed_us(fn)
    end = log_offset()
    del fn
    if rank != 0:
        return None
    logged = None
    if start is not None and end is not None:
        logged = nccl_log.dominant_choice(nccl_log.read_range(log_path(), start, end), nccl_log.NCCL_FUNC[op])
    # NCCL_ALGO has no hold on send/receive (all-to-all): forced, its algorithm is unknown.
    algo = logged["algorithm"] if logged else (None if op == "all_to_all" else forced.get("NCCL_ALGO"))
    proto = logged["protocol"] if logged else forced.get("NCCL_PROTO")
    channels = logged["channels"] if logged else forced.get("channels")
    return {"schema": "c3sim.measurement", "version": 1, "kind": "iso_coll", "op": op, "impl": "cu",
            "gpus": world, "bytes": nbytes, "time_us": med, "spread_us": hi - lo, "trials": n,
            "extra": {"min_us": lo, "max_us": hi, "source": "torch", "dtype": "bf16", "config": config,
                      "protocol": proto.upper() if proto else None, "algorithm": algo.upper() if algo else None,
                      "channels": channels, "forced": forced, "nccl": logged, "from_log": logged is not None,
                      "timing": f"per call of {loop} back-to-back calls between two CUDA events, median of {n} loops"
                                if loop else "one call between two CUDA events (includes the wait for the other rank)",
                      "algbw_GBps": nbytes / med / 1e3, "busbw_GBps": nbytes * BUS_FACTOR[op](world) / med / 1e3,
                      "note": "bytes = the whole tensor (all-gather output, reduce-scatter input, all-reduce "
                              "buffer, all-to-all input); protocol/algorithm/channels as NCCL's TUNING log "
                              "printed them, else as forced (all-to-all: no algorithm)"}}


def channel_group(channels):
    opts = dist.ProcessGroupNCCL.Options()
    opts.config.min_ctas = channels
    opts.config.max_ctas = channels
    return dist.new_group(ranks=list(range(dist.get_world_size())), backend="nccl", pg_options=opts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True, help="a name for this run's environment (ring_ll, default, ...)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--channel-sweep", action="store_true")
    ap.add_argument("--loop", type=int, default=0,
                    help="time N back-to-back calls per event pair (latency); 0 = each call alone")
    ap.add_argument("--max-bytes", type=int, default=SIZES[-1])
    args = ap.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    os.makedirs(args.out, exist_ok=True)
    if os.environ.get("NCCL_DEBUG") and not os.environ.get("NCCL_DEBUG_FILE"):
        os.environ["NCCL_DEBUG_FILE"] = os.path.join(os.path.abspath(args.out),
                                                     f"{args.config}_rank{os.environ.get('RANK', local)}.log")
    device = torch.device("cuda", local)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()
    forced = {k: os.environ[k] for k in ("NCCL_ALGO", "NCCL_PROTO") if os.environ.get(k)}
    records = []
    for op in args.ops.split(","):
        for nbytes in [b for b in SIZES if b <= args.max_bytes]:
            try:
                r = measure(op, nbytes, rank, world, device, None, args.config, forced, args.loop)
            except Exception:  # a combination NCCL refuses fails the same way on every rank
                traceback.print_exc()
                print(f"{args.config}: {op} {nbytes} B failed; the rest of {op} skipped", file=sys.stderr)
                break
            if r:
                records.append(r)
                print(f"{args.config} {op} {nbytes} B {r['time_us']:.1f} us {r['extra']['algorithm']} "
                      f"{r['extra']['protocol']} {r['extra']['channels']}ch", file=sys.stderr)
    if args.channel_sweep:
        for ch in CHANNEL_COUNTS:
            try:
                group = channel_group(ch)
            except Exception:
                traceback.print_exc()
                print(f"{args.config}: no communicator with {ch} channels; channel sweep stopped", file=sys.stderr)
                break
            for op in CHANNEL_OPS:
                for nbytes in CHANNEL_SIZES:
                    try:
                        r = measure(op, nbytes, rank, world, device, group, args.config,
                                    dict(forced, channels=ch))
                    except Exception:
                        traceback.print_exc()
                        continue
                    if r:
                        records.append(r)
                        print(f"{args.config} {ch}ch {op} {nbytes} B {r['time_us']:.1f} us logged "
                              f"{r['extra']['channels']}ch", file=sys.stderr)
            dist.destroy_process_group(group)
    if rank == 0:
        props = torch.cuda.get_device_properties(device)
        env = {"schema": "c3sim.measurement", "version": 1, "kind": "env", "producer": "torch",
               "hardware": props.name, "gpus": world, "cus_per_gpu": props.multi_processor_count,
               "details": {"torch": torch.__version__, "cuda": torch.version.cuda,
                           "nccl": ".".join(map(str, torch.cuda.nccl.version())), "config": args.config,
                           "environment": {k: os.environ.get(k, "") for k in
                                           ("NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE", "NCCL_DEBUG_SUBSYS")}}}
        path = log_path()
        if path:
            whole = nccl_log.read_range(path)
            env["details"]["nccl_channels_per_comm"] = nccl_log.channel_counts(whole)
            tables = nccl_log.tuning_tables(whole)
            env["details"]["nccl_tuning_table"] = tables[0] if tables else None
        with open(os.path.join(args.out, f"{args.config}.jsonl"), "w") as f:
            for r in [env] + records:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

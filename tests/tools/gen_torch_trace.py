#!/usr/bin/env python3
"""Writes a synthetic PyTorch profiler (Kineto) trace of about EVENTS trace events, for measuring
`c3sim import --from torch-profiler` on large input (docs/programs.md, "Import a PyTorch profiler
trace"). Deterministic: the same arguments give the same bytes.

Each repeated unit is what a training step's trace holds per operator: a cpu_op (with Input Dims
for the matmuls, message sizes for the collective), its cudaLaunchKernel, the GPU kernel, and the
ac2g flow pair that links them; GEMMs run on stream 7, all-gathers on stream 20 after a
cudaStreamWaitEvent, elementwise kernels on stream 7, and every 64th unit the host blocks in a
cudaStreamSynchronize. About 5.5 events per kernel.

Usage: gen_torch_trace.py EVENTS OUT.json
"""
import sys


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    target = int(sys.argv[1])
    out_path = sys.argv[2]
    events = 0
    host = 1000.0  # host clock (us)
    gpu7 = 0.0  # end of the last kernel on stream 7
    corr = 1
    ext = 1
    with open(out_path, "w", encoding="ascii") as out:
        out.write('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, '
                  '"world_size": 8},\n"traceEvents": [\n')
        first = True

        def emit(text: str) -> None:
            nonlocal first, events
            out.write(("" if first else ",\n") + text)
            first = False
            events += 1

        unit = 0
        while events < target:
            kind = unit % 3
            if kind == 0:  # GEMM: aten::mm around a cuBLAS kernel
                emit(f'{{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 100, '
                     f'"ts": {host:.3f}, "dur": 12.000, "args": {{"External id": {ext}, '
                     f'"Input Dims": [[4096, 4096], [4096, 1024]], '
                     f'"Input type": ["c10::BFloat16", "c10::BFloat16"]}}}}')
                name = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"
                stream, dur, grid = 7, 40.0, "[132, 1, 1]"
            elif kind == 1:  # all-gather on stream 20, after an event wait
                emit(f'{{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, '
                     f'"tid": 100, "ts": {host:.3f}, "dur": 12.000, "args": {{"External id": {ext}, '
                     f'"Collective name": "_allgather_base", "In msg nelems": 1048576, '
                     f'"Out msg nelems": 8388608, "dtype": "BFloat16", "Group size": 8}}}}')
                emit(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, '
                     f'"tid": 100, "ts": {host + 1:.3f}, "dur": 1.000, "args": {{"correlation": {corr}}}}}')
                corr += 1
                name = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                stream, dur, grid = 20, 60.0, "[16, 1, 1]"
            else:  # elementwise
                emit(f'{{"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 1, "tid": 100, '
                     f'"ts": {host:.3f}, "dur": 8.000, "args": {{"External id": {ext}}}}}')
                name = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add"
                        "<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add"
                        "<c10::BFloat16>, at::detail::Array<char*, 3>)")
                stream, dur, grid = 7, 9.0, "[2048, 1, 1]"
            launch = host + 3
            emit(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, '
                 f'"tid": 100, "ts": {launch:.3f}, "dur": 4.000, '
                 f'"args": {{"correlation": {corr}, "External id": {ext}}}}}')
            start = max(launch + 6, gpu7 if stream == 7 else launch + 6)
            emit(f'{{"ph": "X", "cat": "kernel", "name": "{name}", "pid": 0, "tid": {stream}, '
                 f'"ts": {start:.3f}, "dur": {dur:.3f}, "args": {{"device": 0, "stream": {stream}, '
                 f'"correlation": {corr}, "External id": {ext}, "grid": {grid}, "block": [256, 1, 1]}}}}')
            emit(f'{{"ph": "s", "id": {corr}, "pid": 1, "tid": 100, "ts": {launch:.3f}, '
                 f'"cat": "ac2g", "name": "ac2g"}}')
            emit(f'{{"ph": "f", "id": {corr}, "pid": 0, "tid": {stream}, "ts": {start:.3f}, '
                 f'"cat": "ac2g", "name": "ac2g", "bp": "e"}}')
            if stream == 7:
                gpu7 = start + dur
            corr += 1
            ext += 1
            host += 15
            if unit % 64 == 63:
                emit(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, '
                     f'"tid": 100, "ts": {host:.3f}, "dur": {max(1.0, gpu7 - host):.3f}, '
                     f'"args": {{"correlation": {corr}}}}}')
                corr += 1
                host = max(host, gpu7) + 2
            unit += 1
        out.write("\n]}\n")


if __name__ == "__main__":
    main()

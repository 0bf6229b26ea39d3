"""What the committed step traces hold, read without PyTorch: the steps' names, the GEMM ops, their
dtypes and logical products, a trace's events. capture_steps.py (which needs PyTorch) and the
analysis scripts that run on any machine share these.
"""
import json

STEPS = ["ddp_b25", "ddp_b100", "fsdp_w4k", "fsdp_w8k", "fsdp_w4k_noreshard", "tp", "sp", "moe", "tp_fp16"]
GEMM_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")


def dtype_name(t):
    s = t.lower()
    if "bfloat16" in s:
        return "bf16"
    if "half" in s:
        return "fp16"
    if "float8" in s:
        return "fp8"
    if s in ("float", "c10::float") or "float32" in s:
        return "fp32"
    return None


def gemm_mnk(name, dims):
    """c3sim import's logical product (workloads/torch_trace_import.cpp): batch folds into m."""
    a, b = (dims[1], dims[2]) if name in ("aten::addmm", "aten::baddbmm") else (dims[0], dims[1])
    m = 1
    for d in a[:-1]:
        m *= d
    return m, b[-1], a[-1]


def read_trace(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]

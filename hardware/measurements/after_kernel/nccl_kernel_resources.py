"""How many CTAs of each NCCL device kernel fit on one SM: registers, static shared memory and
occupancy as CUDA reports them, for the library this process loads.

NCCL links the CUDA runtime statically and keeps its kernels' host stubs as local symbols, so this
reads the library's ELF symbol table for the stubs and for its own copies of
cudaFuncGetAttributes / cudaOccupancyMaxActiveBlocksPerMultiprocessor / cudaFuncSetAttribute, and
calls those at the library's load address (ctypes). One JSON line per kernel.
    python3 nccl_kernel_resources.py [path/to/libnccl.so.2]
NCCL's dynamic shared memory per CTA is ncclShmemDynamicSize (src/include/device.h): 20 warps x
the largest protocol's scratch per warp; on sm_90 the simple protocol's (unroll x 32 + 1) x 16
bytes, passed here for unroll 4 and 8 (the library sets its kernels' maximum before launching).
"""
import ctypes
import ctypes.util
import json
import re
import struct
import subprocess
import sys


def all_nccl():
    out = subprocess.run(["bash", "-c", "find / -name 'libnccl.so*' -type f -not -path '/proc/*' 2>/dev/null"],
                         capture_output=True, text=True).stdout.split()
    return out


def local_symbols(path, wanted):
    data = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out = {}
    for s in sections:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[s[6]]
        str_off = strtab[4]
        for k in range(s[5] // 24):
            name_off, info, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, s[4] + k * 24)
            if info & 0xF != 2 or value == 0:  # STT_FUNC
                continue
            end = data.index(b"\0", str_off + name_off)
            name = data[str_off + name_off:end].decode()
            if wanted(name):
                out[name] = value
    return out


class Dl_info(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def main():
    runtime = {"cudaFuncGetAttributes", "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaFuncSetAttribute",
               "cudaSetDevice"}
    kernel_re = re.compile(r"^_Z\d+(ncclDevKernel_\w+?)24ncclDevKernelArgsStorageILm4096EE$")
    # The first library whose symbol table still has the stubs (a distribution's copy may be stripped).
    for path in sys.argv[1:] or all_nccl():
        syms = local_symbols(path, lambda n: n in runtime or kernel_re.match(n) is not None)
        print(f"{path}: {len(syms)} symbols", file=sys.stderr)
        if runtime <= syms.keys():
            break
    else:
        sys.exit("no libnccl with its local symbols")
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    libdl = ctypes.CDLL(ctypes.util.find_library("dl") or "libc.so.6")
    info = Dl_info()
    libdl.dladdr(ctypes.cast(lib.ncclGetVersion, ctypes.c_void_p), ctypes.byref(info))
    base = info.dli_fbase
    version = ctypes.c_int()
    lib.ncclGetVersion(ctypes.byref(version))

    def fn(name, *argtypes):
        return ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)(base + syms[name])

    set_device = fn("cudaSetDevice", ctypes.c_int)
    get_attr = fn("cudaFuncGetAttributes", ctypes.c_void_p, ctypes.c_void_p)
    set_attr = fn("cudaFuncSetAttribute", ctypes.c_void_p, ctypes.c_int, ctypes.c_int)
    occupancy = fn("cudaOccupancyMaxActiveBlocksPerMultiprocessor", ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                   ctypes.c_int, ctypes.c_size_t)
    assert set_device(0) == 0
    for name, value in sorted(syms.items()):
        m = kernel_re.match(name)
        if not m:
            continue
        func = ctypes.c_void_p(base + value)
        buf = ctypes.create_string_buffer(512)
        rc = get_attr(buf, func)
        if rc != 0:
            print(json.dumps({"kernel": m.group(1), "error": rc}))
            continue
        shared, const, local = struct.unpack_from("<QQQ", buf.raw, 0)
        max_threads, regs = struct.unpack_from("<ii", buf.raw, 24)
        set_attr(func, 8, 200 << 10)  # cudaFuncAttributeMaxDynamicSharedMemorySize
        fits = {}
        for threads in (544, 640):
            for unroll in (4, 8):
                dyn = ((unroll * 32 + 1) * 16 + 15) // 16 * 16 * 20
                n = ctypes.c_int()
                occupancy(ctypes.byref(n), func, threads, dyn)
                fits[f"threads_{threads}_dyn_{dyn}"] = n.value
        print(json.dumps({"kernel": m.group(1), "nccl_version": version.value, "regs": regs,
                          "static_smem": shared, "local_bytes": local, "max_threads": max_threads,
                          "ctas_per_sm": fits}))


if __name__ == "__main__":
    main()

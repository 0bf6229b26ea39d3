#!/usr/bin/env python3
"""Global loads, stores and scoreboard waits of the two lookup kernels in an sm_90 cubin (README,
"Occupancy at pooling 32"): which row loads a thread has in flight together.

Build the cubin from the committed source with the toolkit c3bench was built with (CUDA 13.0):
  nvcc -std=c++17 -O3 -DC3BENCH_NVIDIA -arch=sm_90 -I. -cubin \\
      hardware/hip/fused_a2a_kernels.cu -o lookup.cubin
  python3 hardware/measurements/fused_2gpu/sass_loads.py lookup.cubin

Reads the ELF .text sections itself (no cuobjdump needed). Each 128-bit instruction keeps its opcode
in bits 0-11 (0x981 LDG, 0x986 STG, 0x947 BRA) and its control bits from bit 105: stall (4 bits),
yield (1), the scoreboard a load sets when it completes (3; 7 = none), a read scoreboard (3) and the
mask of scoreboards the instruction waits on (6): the Volta-and-later layout (Jia et al., "Dissecting
the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018). A row load issued after a wait on the
scoreboard of an earlier row load of the same iteration is not in flight with it.
"""
import struct
import sys

OPCODES = {0x981: "LDG", 0x986: "STG", 0x947: "BRA"}


def sections(elf):
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    for name, _, _, _, offset, size in headers:
        end = elf.index(b"\0", names_at + name)
        yield elf[names_at + name:end].decode(), offset, size


def main():
    elf = open(sys.argv[1], "rb").read()
    for name, offset, size in sections(elf):
        if not name.startswith(".text.") or "lookup_kernel" not in name:
            continue
        print("fused" if "ILb1E" in name else "plain", f"({size // 16} instructions)")
        for k in range(size // 16):
            lo, hi = struct.unpack_from("<QQ", elf, offset + 16 * k)
            control = hi >> 41
            sets, waits = (control >> 5) & 7, (control >> 11) & 0x3F
            op = OPCODES.get(lo & 0xFFF)
            if op is None and not waits:
                continue
            text = f"  {k:4d} {op or 'op ' + hex(lo & 0xFFF)}"
            if sets != 7:
                text += f" sets SB{sets}"
            if waits:
                text += " waits " + ",".join(f"SB{b}" for b in range(6) if waits >> b & 1)
            print(text)


if __name__ == "__main__":
    main()

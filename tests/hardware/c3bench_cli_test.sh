#!/usr/bin/env bash
# c3bench's command line on a machine without a GPU (CI): help lists every policy and sweep, bad
# input exits 2 naming file, line and key before any GPU call (no output file), and a valid file
# reaches the GPU runtime and fails there with exit 3 (so the checks above really ran first).
# Usage: c3bench_cli_test.sh C3BENCH SOURCE_DIR [CUDA_STUB_DIR]
set -u
bench=$1
src=$2
stub_dir=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -n "$stub_dir" ]]; then
  # The CUDA build needs libcuda.so.1 to start; the toolkit's stub fails every driver call.
  ln -s "$stub_dir/libcuda.so" "$tmp/libcuda.so.1"
  export LD_LIBRARY_PATH="$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
failures=0
expect() {  # expect RC PATTERN -- ARGS...: exit code RC and PATTERN in stdout+stderr
  local want=$1 pattern=$2
  shift 3
  local out rc
  out=$("$bench" "$@" 2>&1)
  rc=$?
  if [[ $rc -ne $want ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    printf 'FAIL: c3bench %s\n  want exit %s and /%s/, got exit %s:\n%s\n' "$*" "$want" "$pattern" "$rc" "$out"
    failures=$((failures + 1))
  fi
}
expect 0 "sweep" -- --help
expect 0 "sp_rp:<n>.*vendor_zero_cta_sp|vendor_zero_cta_sp" -- run --help
expect 0 "SECOND arrives one host launch later" -- run --help
expect 0 "copy_engine, launch" -- sweep --help

printf 'scenarios:\n  - name: s\n    gemm: cb1\n    collective: {op: all_gather, bytes: 1 GiB}\n    colour: red\n' >"$tmp/bad.yaml"
expect 2 "bad.yaml:5.*colour" -- run "$tmp/bad.yaml" -o "$tmp/out.jsonl"
[[ -e "$tmp/out.jsonl" || -e "$tmp/out.jsonl.partial" ]] && { echo "FAIL: output file left by bad input"; failures=$((failures + 1)); }
expect 2 "cannot reduce a reduce_scatter" -- run "$src/hardware/measurements/h200_beyond_red.yaml" --policy all
# Pair scenario names are parsed by c3sim's policy registry (one vocabulary): a name it does not
# know, one c3bench's pair runner has no launch for, and `all` inside a list are refused.
expect 2 "unknown policy 'bogus'" -- run "$src/hardware/measurements/smoke.yaml" --policy base,bogus
expect 2 "'dma_rp:64' is not one of c3bench's pair policies" -- run "$src/hardware/measurements/smoke.yaml" --policy dma_rp:64
expect 2 "'rp_best' is not one of c3bench's pair policies" -- run "$src/hardware/measurements/smoke.yaml" --policy rp_best
expect 2 "'all' is only valid alone" -- run "$src/hardware/measurements/smoke.yaml" --policy base,all
expect 2 "unknown sweep 'nope'" -- sweep --what nope
expect 2 "coll_ctas, coll_partition, dma_size" -- sweep --what nope
expect 2 "gemm_launch needs a scenario file" -- sweep --what gemm_launch
expect 2 "--ops.*'foo' is not a collective" -- sweep --what coll_ctas --ops all_gather,foo
expect 2 "--trials" -- run "$src/hardware/measurements/smoke.yaml" --trials 0
# Trial conditioning (hardware/hip/bench.h): documented, checked before any GPU call.
expect 0 "--condition-idle-ms" -- run --help
expect 2 "--condition-idle-ms.*between 0 and 10000" -- run "$src/hardware/measurements/smoke.yaml" --condition-idle-ms -1
expect 2 "--condition-spin-ms" -- sweep --condition-spin-ms nan
expect 0 "--no-condition-warm-collective" -- run --help
expect 0 "a 1 MiB all-reduce through the library" -- run --help
expect 3 "GPU error" -- run "$src/hardware/measurements/smoke.yaml" --no-condition-warm-collective -o "$tmp/out.jsonl"
expect 2 "--trial-order.*'random'" -- run "$src/hardware/measurements/smoke.yaml" --trial-order random
expect 3 "GPU error" -- run "$src/hardware/measurements/smoke.yaml" -o "$tmp/out.jsonl"

# Program files (hardware/hip/program_bench.h): checked whole (program, each policy's transformed
# program) before any GPU call.
expect 0 "program YAML" -- run --help
prog="$src/hardware/measurements/h200x2_programs.yaml"
expect 2 "needs --hardware" -- run "$prog" -o "$tmp/prog.jsonl"
printf 'program:\n  name: p\n  streams: [{name: s}]\n  kernels:\n    - {name: a, stream: s, memory: {bytes: 1 MiB}, colour: red}\n' >"$tmp/badprog.yaml"
expect 2 "badprog.yaml:5.*colour" -- run "$tmp/badprog.yaml" --hardware h200-sxm -o "$tmp/prog.jsonl"
printf 'program:\n  name: p\n  streams: [{name: s}, {name: t}]\n  kernels:\n    - {name: a, stream: s, after: [b], memory: {bytes: 1 MiB}}\n    - {name: b, stream: t, memory: {bytes: 1 MiB}}\n' >"$tmp/later.yaml"
expect 2 "later.yaml:5.*p.kernels.a.after.*already recorded" -- run "$tmp/later.yaml" --hardware h200-sxm
expect 2 "unknown policy 'bogus'" -- run "$prog" --hardware h200-sxm --policy base,bogus
# CU masks (rp:<n>: green contexts) and the vendor zero-CTA collective pass the checks and reach
# the GPU runtime (exit 3 below); masks the split cannot make, or on a multi-XCD preset, do not.
expect 3 "GPU error" -- run "$prog" --hardware h200-sxm --policy rp:32,sp_rp:16,dma_rp:64 --trials 1
expect 3 "GPU error" -- run "$prog" --hardware h200-sxm --policy vendor_zero_cta,vendor_zero_cta_sp --trials 1
expect 2 "rp:12.*not a multiple of 8" -- run "$prog" --hardware h200-sxm --policy rp:12
expect 2 "h200x2_programs.yaml:16:.*ag_gemm_chunked.streams.compute.cus.*one L2 domain.*under rp:32" -- \
  run "$prog" --hardware mi300x --policy rp:32
printf 'program:\n  name: p\n  streams: [{name: s, cus: 12}]\n  kernels:\n    - {name: a, stream: s, memory: {bytes: 1 MiB}}\n' >"$tmp/mask12.yaml"
expect 2 "mask12.yaml:3:.*p.streams.s.cus.*SMs 0..11.*multiples of 8" -- run "$tmp/mask12.yaml" --hardware h200-sxm
# Collective-side masks stack up from SM 0 (c3sim's layout): 128 + 4 fill the H200's 132 SMs and
# leave nothing for a third masked stream.
printf 'program:\n  name: p\n  streams: [{name: a, cus: 128}, {name: b, cus: 8}, {name: c, cus: 8}]\n  kernels:\n    - {name: x, stream: a, memory: {bytes: 1 MiB}}\n    - {name: y, stream: b, memory: {bytes: 1 MiB}}\n    - {name: z, stream: c, memory: {bytes: 1 MiB}}\n' >"$tmp/full.yaml"
expect 2 "full.yaml:3:.*p.streams.c.cus.*no SMs are left" -- run "$tmp/full.yaml" --hardware h200-sxm
printf 'program:\n  name: p\n  streams: [{name: s}]\n  kernels:\n    - {name: a, stream: s, collective: {op: all_reduce, bytes: 1 MiB, impl: dma_hybrid}}\n' >"$tmp/hybrid.yaml"
expect 2 "hybrid.yaml:5:.*impl dma_hybrid" -- run "$tmp/hybrid.yaml" --hardware h200-sxm
expect 2 "no program selected" -- run "$prog" --hardware h200-sxm --only nope
expect 2 "program files only" -- run "$src/hardware/measurements/smoke.yaml" --hardware h200-sxm
[[ -e "$tmp/prog.jsonl" || -e "$tmp/prog.jsonl.partial" ]] && { echo "FAIL: output file left by a bad program run"; failures=$((failures + 1)); }
expect 3 "GPU error" -- run "$prog" --hardware h200-sxm --policy base,sp,ficco:4,ficco_dma:4,dma --trials 1

# The fused embedding + all-to-all sweep (hardware/hip/fused_a2a.h): its options are documented, its
# sizes and chunks checked before any GPU call, and a valid request reaches the GPU runtime.
expect 0 "fused_a2a" -- sweep --help
expect 0 "fused_a2a: BATCHxTABLESxDIMxPOOLING" -- sweep --help
expect 2 "--fused-sizes.*'16384x8x128' is not BATCHxTABLESxDIMxPOOLING" -- sweep --what fused_a2a --fused-sizes 16384x8x128
expect 2 "--fused-sizes.*'64x8x0x2' is not" -- sweep --what fused_a2a --fused-sizes 4096x8x128x8,64x8x0x2
expect 2 "--fused-sizes.*'4096x8x130x8': dim must be a multiple of 4" -- sweep --what fused_a2a --fused-sizes 4096x8x130x8
expect 2 "--fused-sizes.*larger than the lookup indexes" -- sweep --what fused_a2a --fused-sizes 1048576x64x128x64
expect 2 "--fused-chunks.*'0' is not a positive integer" -- sweep --what fused_a2a --fused-chunks 1,0
expect 2 "--fused-rows.*at least 1" -- sweep --what fused_a2a --fused-rows 0
expect 2 "--fused-bulk-tile.*at least 1" -- sweep --what fused_a2a --fused-bulk-tile -3
expect 3 "GPU error" -- sweep --what fused_a2a --fused-sizes 4096x8x128x8 --fused-chunks 4 --trials 1 -o "$tmp/fused.jsonl"
[[ -e "$tmp/fused.jsonl" ]] && { echo "FAIL: output file left by a failed fused_a2a sweep"; failures=$((failures + 1)); }

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "c3bench command line: all checks passed"

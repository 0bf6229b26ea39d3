#!/bin/bash
# Run on the lent machine as: bash .c3bench_dev/smoke.sh (see README.md here)
# Smoke test on the device: environment, topology, libraries, then a small run and DMA sweeps.
set -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L; nvidia-smi topo -m; nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm --format=csv
NCCLLIB=$(find / -name 'libnccl.so.2' -not -path '/proc/*' 2>/dev/null | head -3); echo "nccl libs: $NCCLLIB"
CUBLAS=$(find / -name 'libcublas.so.13' -not -path '/proc/*' 2>/dev/null | head -3); echo "cublas: $CUBLAS"
export LD_LIBRARY_PATH=$PWD/.c3bench_dev/lib:$(dirname $(echo "$NCCLLIB" | head -1)):$(dirname $(echo "$CUBLAS" | head -1)):$LD_LIBRARY_PATH
ldd .c3bench_dev/c3bench | grep -E "not found|nccl|cublas|cudart"
B=.c3bench_dev/c3bench
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING timeout 240 $B run hardware/measurements/smoke.yaml --policy all --trials 3 --warmups 1 --gemm-sm-limits 64 --coll-cta-limits 8,32 -o $OUT/smoke.jsonl > $OUT/smoke_stdout.log 2> $OUT/smoke_stderr.log; echo "run rc=$?"
grep -i -E "version|CE |ce coll|symmetric|zero|CTAPolicy|warn" $OUT/smoke_stderr.log | head -30
tail -5 $OUT/smoke_stderr.log
timeout 200 $B sweep --what dma_engines,dma_latency --engine-sweep-bytes 1GiB --trials 3 --warmups 1 -o $OUT/sweep_engines.jsonl 2> $OUT/sweep_stderr.log; echo "sweep rc=$?"; tail -3 $OUT/sweep_stderr.log
python3 - <<'PY'
import json,os
out=os.environ['OUT']
for f in ['smoke.jsonl','sweep_engines.jsonl']:
    p=os.path.join(out,f)
    if not os.path.exists(p): print('missing',f); continue
    for l in open(p):
        r=json.loads(l)
        k=r['kind']
        if k=='env': print('ENV',r['hardware'],r['gpus'],r['cus_per_gpu'],json.dumps({x:r['details'].get(x) for x in ['collective_library_version','blas_version','driver_api_version','async_engine_count']}))
        elif k=='iso_gemm': print('GEMM',r.get('tag'),r['cus'],round(r['time_us']),round(r['extra']['tflops']))
        elif k=='iso_coll': print('COLL',r['op'],r['bytes']>>20,'MiB',r['impl'],r.get('workgroups'),r['extra'].get('config'),round(r['time_us']),'us',round(r['extra'].get('algbw_gbps',0)),'GB/s spread',round(r.get('spread_us',0)))
        elif k=='c3': print('C3',r['scenario'],r['policy'],round(r['time_us']),'g',round(r['gemm_time_us']),'c',round(r['coll_time_us']),'su',round(r['speedup'],3),'ideal',round(r['ideal_speedup'],3))
PY

# Sourced by run_ordered.sh, run_programs.sh and run_programs2.sh (on the lent machine, from the
# repository root): NVLink multicast off (the device tool's rule), the carried c3bench
# (.c3bench_dev/, or the folder C3BENCH_DEV names) with the device's own NCCL and cuBLAS on the library path, and
#   step LIMIT_S NAME ARGS...   c3bench ARGS under a time limit, stderr to $LOG, rc and elapsed
#                               time to the log and stdout (the caller sets LOG first).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NCCLLIB=$(find / -name 'libnccl.so.2' -not -path '/proc/*' 2>/dev/null | head -1)
CUBLAS=$(find / -name 'libcublas.so.13' -not -path '/proc/*' 2>/dev/null | head -1)
C3BENCH_DEV=${C3BENCH_DEV:-$PWD/.c3bench_dev}
export LD_LIBRARY_PATH=$C3BENCH_DEV/lib:$(dirname "$NCCLLIB"):$(dirname "$CUBLAS"):$LD_LIBRARY_PATH
B=$C3BENCH_DEV/c3bench
T0=$(date +%s)
step() {
  local limit=$1 name=$2
  shift 2
  timeout "$limit" "$B" "$@" 2>>"$LOG"
  echo "$name rc=$? at $(($(date +%s) - T0)) s" | tee -a "$LOG"
}

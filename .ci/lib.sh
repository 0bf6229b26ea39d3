# Shared helpers for the .ci/ scripts; source it, do not run it.
# shellcheck shell=bash

# Repository root, whatever directory the script was started from.
C3SIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export C3SIM_ROOT

# CI machines have 2 cores; override with JOBS=N.
JOBS="${JOBS:-2}"
export JOBS

# nvcc (CUDA 13) lives outside the default PATH; the default build builds c3bench when it is found.
if [[ -d /usr/local/cuda/bin && ":$PATH:" != *":/usr/local/cuda/bin:"* ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

ci_log() { printf '[ci] %s\n' "$*"; }
ci_die() { printf '[ci] ERROR: %s\n' "$*" >&2; exit 1; }

# The first of the given commands found on PATH (prints it), or fails.
ci_find_tool() {
  local t
  for t in "$@"; do
    if command -v "$t" >/dev/null 2>&1; then
      printf '%s\n' "$t"
      return 0
    fi
  done
  ci_die "none of these tools is installed: $* (run .ci/install-deps)"
}

# First-party C++/CUDA sources under the given folders (default: all first-party folders), one per
# line, relative to the repository root. Tracked and untracked-but-not-ignored files, so build dirs
# (ignored) never appear; outside a git checkout, falls back to find, pruning build*/ folders.
ci_first_party_sources() {
  local dirs=("$@")
  ((${#dirs[@]})) || dirs=(sim hardware workloads models tests examples)
  local existing=() d
  for d in "${dirs[@]}"; do
    if [[ -e "$C3SIM_ROOT/$d" ]]; then existing+=("$d"); fi
  done
  ((${#existing[@]})) || return 0
  if git -C "$C3SIM_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$C3SIM_ROOT" ls-files --cached --others --exclude-standard -- "${existing[@]}" |
      { grep -E '\.(h|cpp|cu|cuh)$' || true; } | while read -r f; do
        if [[ -f "$C3SIM_ROOT/$f" ]]; then printf '%s\n' "$f"; fi
      done | sort -u
  else
    (cd "$C3SIM_ROOT" && find "${existing[@]}" \( -type d -name 'build*' -prune \) -o \
      -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print | sort)
  fi
}

# The sanitizer tree that the sanitize and fuzz stages share (default build-asan): clang with ASan +
# UBSan and libFuzzer's coverage instrumentation on every first-party object (cmake/Fuzzing.cmake),
# tests and fuzz targets both. One compile serves both stages: the instrumentation that lets the
# fuzzers see edges costs the tests little, and a second sanitized build of the same sources would
# double the longest part of CI. Benchmarks and c3bench add build time and nothing the sanitizers
# check. Prints the tree's path.
ci_configure_sanitizer_tree() {
  local build_dir="${BUILD_DIR:-build-asan}" cc cxx extra_args=()
  cc="${FUZZ_CC:-$(ci_find_tool clang-14 clang)}"
  cxx="${FUZZ_CXX:-$(ci_find_tool clang++-14 clang++)}"
  read -r -a extra_args <<<"${CMAKE_ARGS:-}"
  ci_log "configure $build_dir ($cxx, RelWithDebInfo, -DC3SIM_BUILD_FUZZERS=ON: ASan + UBSan + coverage)" >&2
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DC3SIM_BUILD_FUZZERS=ON \
    -DC3SIM_BUILD_TESTS=ON -DC3SIM_BUILD_BENCHMARKS=OFF -DC3SIM_BUILD_C3BENCH=OFF \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${extra_args[@]}" >&2
  printf '%s\n' "$build_dir"
}

#!/usr/bin/env bash
# `pip install .` as a user does it, offline: a fresh virtual environment (Debian's setuptools,
# wheel, pytest and pandas lent by --system-site-packages; nothing on PYTHONPATH), then the
# installed package runs the README's Python example and the pytest suite (test_readme.py is the
# README example), and the installed `c3sim --version` prints the VERSION file.
# Usage: pip_install_test.sh PYTHON SOURCE_DIR SCRATCH_DIR   (env CMAKE_ARGS: passed to the build)
set -euo pipefail
python="$1"
source_dir="$2"
scratch="$3"
venv="$scratch/venv"

unset PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
# The CMake tree lives in the scratch folder and is kept: a rerun rebuilds only what changed.
(cd "$source_dir" && C3SIM_PIP_BUILD_DIR="$scratch/cmake" \
  "$venv/bin/python" -m pip install --no-build-isolation --no-index --no-deps --quiet .)

# Run from outside the source tree: the package must come from the venv.
cd "$scratch"
location="$("$venv/bin/python" -c 'import c3sim; print(c3sim.__file__)')"
[[ "$location" == "$venv"/* ]] || { echo "c3sim imported from $location, not the venv"; exit 1; }

expected="c3sim $(head -n1 "$source_dir/VERSION")"
actual="$("$venv/bin/c3sim" --version)"
[[ "$actual" == "$expected" ]] || { echo "c3sim --version: '$actual', expected '$expected'"; exit 1; }

C3SIM_CLI="$venv/bin/c3sim" C3SIM_SOURCE_DIR="$source_dir" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$source_dir/tests/python"

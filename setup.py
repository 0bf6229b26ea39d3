"""The native half of `pip install .` (pyproject.toml holds the metadata): CMake builds the Python
module c3sim._core and the `c3sim` command line; the wheel gets the module inside the c3sim package
(sim/python/c3sim) and the command in the environment's bin/.

Only the two targets are built (no tests, benchmarks or c3bench). Environment:
  C3SIM_PIP_BUILD_DIR  the CMake build directory (default build/pip); kept, so a second install
                       rebuilds only what changed
  CMAKE_ARGS           extra CMake arguments, e.g. "-DC3SIM_WITH_MPI=OFF"
  CMAKE_BUILD_PARALLEL_LEVEL  parallel compile jobs (default: every core)
ccache is used when it is on PATH and CMAKE_ARGS names no compiler launcher.
"""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD_DIR = pathlib.Path(os.environ.get("C3SIM_PIP_BUILD_DIR") or ROOT / "build" / "pip").resolve()
CLI = BUILD_DIR / "sim" / "cli" / "c3sim"
MODULE_DIR = BUILD_DIR / "sim" / "python" / "c3sim"


def cmake_configure_args():
    extra = shlex.split(os.environ.get("CMAKE_ARGS", ""))
    args = [
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DC3SIM_WITH_PYTHON=ON",
        "-DC3SIM_BUILD_TESTS=OFF",
        "-DC3SIM_BUILD_BENCHMARKS=OFF",
        "-DC3SIM_BUILD_C3BENCH=OFF",
    ]
    if shutil.which("ccache") and not any("COMPILER_LAUNCHER" in a for a in extra):
        args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    return args + extra


class CMakeExtension(Extension):
    """An extension module CMake builds (no sources for setuptools to compile)."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def run(self):
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(BUILD_DIR), *cmake_configure_args()], check=True)
        subprocess.run(
            ["cmake", "--build", str(BUILD_DIR), "--target", "c3sim", "c3sim_python", "-j", jobs], check=True
        )
        super().run()

    def build_extension(self, ext):
        built = sorted(MODULE_DIR.glob("_core*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one c3sim._core module in {MODULE_DIR}, found {built}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    ext_modules=[CMakeExtension("c3sim._core")],
    cmdclass={"build_ext": CMakeBuild},
    # The command line is a native executable, not a Python script: installed as data into the
    # environment's bin/ (pip keeps its executable bit).
    data_files=[("bin", [str(CLI)])],
    # setuptools' own staging beside the CMake tree, not in a top-level build/ a CMake tree may use.
    options={"build": {"build_base": str(BUILD_DIR / "setuptools")}},
)

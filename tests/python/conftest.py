"""Shared fixtures for the c3sim Python module's tests (tests/python/CMakeLists.txt runs them with
PYTHONPATH at the built module, C3SIM_CLI at the built `c3sim` and C3SIM_SOURCE_DIR at the tree)."""

import os
import pathlib
import subprocess

import pytest

import c3sim

SOURCE_DIR = pathlib.Path(os.environ.get("C3SIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


@pytest.fixture(scope="session")
def cli():
    """Runs the c3sim command line; returns its stdout (fails the test on a non-zero exit)."""
    binary = os.environ.get("C3SIM_CLI")
    if not binary:
        pytest.skip("C3SIM_CLI (the built c3sim binary) is not set")

    def run(*args):
        done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


@pytest.fixture()
def mi300x():
    return c3sim.load_hardware("mi300x")

"""One release version (the VERSION file) in the package, the records and the installed metadata."""

import importlib.metadata

import pytest

import c3sim


def test_version_is_the_version_file(source_dir):
    assert c3sim.__version__ == (source_dir / "VERSION").read_text().strip()


def test_records_name_the_release(mi300x):
    res = c3sim.run(mi300x, c3sim.Scenario(catalog="mb1_896M_ag"), ["base"])
    assert res.env["c3sim_version"] == c3sim.__version__


def test_installed_metadata_matches():
    """When c3sim came from `pip install .`, the distribution's version is the module's."""
    try:
        installed = importlib.metadata.version("c3sim")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("c3sim is not an installed distribution here (build tree on PYTHONPATH)")
    assert installed == c3sim.__version__

"""sweep(): the rows `c3sim sweep` writes, the same at any thread count."""

import pytest

import c3sim

SWEEP = {
    "hardware": "mi300x",
    "scenarios": ["mb1_896M_ag", "cb1_896M_a2a"],
    "policies": ["base", "dma"],
    "grid": {"spec.dma.engines": [7, 14], "model.dma.submit_latency": ["1 us", "20 us"]},
}


def write_sweep(tmp_path):
    lines = ["hardware: mi300x", "scenarios: [mb1_896M_ag, cb1_896M_a2a]", "policies: [base, dma]", "grid:",
             "  spec.dma.engines: [7, 14]", "  model.dma.submit_latency: [1 us, 20 us]"]
    path = tmp_path / "sweep.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_sweep_rows_match_the_cli_csv(tmp_path, cli):
    path = write_sweep(tmp_path)
    assert c3sim.sweep_text(path, threads=1) == cli("sweep", path, "--threads", "1", "-q")
    assert c3sim.sweep_text(SWEEP, threads=2, format="jsonl") == cli("sweep", path, "--threads", "2", "-q",
                                                                    "--format", "jsonl")


def test_sweep_rows_same_at_any_thread_count():
    one = c3sim.sweep(SWEEP, threads=1)
    two = c3sim.sweep(SWEEP, threads=2)
    assert one == two
    # 2 x 2 variants x 2 scenarios x 2 policies.
    assert len(one) == 16
    assert [r["point"] for r in one] == list(range(16))
    row = one[0]
    assert row["spec.dma.engines"] == "7" and row["model.dma.submit_latency"] == "1 us"
    assert isinstance(row["time_us"], float) and isinstance(row["bytes"], int)
    # Slower DMA submission can only slow the dma policy (same variant engines, same scenario).
    by = {(r["spec.dma.engines"], r["model.dma.submit_latency"], r["scenario"], r["policy"]): r for r in one}
    for engines in ["7", "14"]:
        for scenario in SWEEP["scenarios"]:
            fast = by[(engines, "1 us", scenario, "dma")]["time_us"]
            slow = by[(engines, "20 us", scenario, "dma")]["time_us"]
            assert slow >= fast


def test_sweep_errors_name_the_key():
    bad = dict(SWEEP, grid={"spec.dma.engine": [7]})
    with pytest.raises(c3sim.InputError) as err:
        c3sim.sweep(bad)
    assert "spec.dma.engine" in str(err.value)
    assert err.value.file == "<c3sim.sweep>"


PROGRAM_SWEEP = {
    "hardware": "mi300x",
    "scenarios": ["cb1_896M_ag"],
    "programs": [{"generate": "tp-block", "model": "llama-70b", "tp": 8}],
    "policies": ["base", "dma"],
    "grid": {"spec.dma.engines": [7, 14]},
}


def test_program_sweep_rows():
    one = c3sim.sweep(PROGRAM_SWEEP, threads=1)
    assert one == c3sim.sweep(PROGRAM_SWEEP, threads=2)
    # 2 variants x (1 scenario + 1 program) x 2 policies, scenario rows first in each variant.
    assert len(one) == 8
    pair, program = one[0], one[2]
    assert pair["scenario"] == "cb1_896M_ag" and pair["program"] == "" and pair["step_us"] is None
    assert program["program"] == "llama-70b_tp8_block" and program["scenario"] == ""
    assert program["bytes"] is None and isinstance(program["step_us"], float)
    # Untransformed (base), the step cannot beat its critical path at isolated times: co-running
    # kernels only slow each other.
    assert program["policy"] == "base" and program["ideal_us"] <= program["step_us"]

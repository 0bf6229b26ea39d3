"""run(), policies() and paper(): the same numbers as the command line, as Python objects."""

import json
import math

import pytest

import c3sim

SCENARIO_YAML = """scenarios:
  - name: qkv_ag
    gemm: {m: 10240, n: 8192, k: 8192, dtype: bf16}
    collective: {op: all_gather, bytes: 128 MiB}
  - catalog: cb1_896M_a2a
"""


def test_run_scenarios_equals_cli_jsonl(tmp_path, cli, mi300x):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO_YAML)
    res = c3sim.run(mi300x, c3sim.load_scenarios(path), policies=["base", "sp", "dma"])
    assert res.to_jsonl() == cli("run", path, "--policy", "base,sp,dma", "--format", "jsonl")
    # Objects hold the records' numbers.
    lines = [json.loads(line) for line in res.to_jsonl().splitlines()]
    c3 = [r for r in lines if r["kind"] == "c3"]
    assert [(r.scenario, r.policy) for r in res] == [(r["scenario"], r["policy"]) for r in c3]
    sp = res["qkv_ag", "sp"]
    assert sp.time_us == next(r["time_us"] for r in c3 if r["scenario"] == "qkv_ag" and r["policy"] == "sp")
    # percent_of_ideal = (speedup - 1) / (ideal - 1), speedup = (iso GEMM + iso coll) / time.
    assert math.isclose(sp.speedup, (sp.iso_gemm_us + sp.iso_coll_us) / sp.time_us, rel_tol=1e-12)
    assert math.isclose(sp.percent_of_ideal, 100 * (sp.speedup - 1) / (sp.ideal_speedup - 1), rel_tol=1e-9)
    assert math.isclose(sp.gemm_slowdown, sp.gemm_time_us / sp.iso_gemm_us)
    assert sp.to_dict() == next(r for r in c3 if r["scenario"] == "qkv_ag" and r["policy"] == "sp")
    assert res.env["hardware"] == lines[0]["hardware"]


def test_records_are_flat_rows(mi300x):
    s = c3sim.Scenario(catalog="mb1_896M_ag")
    res = c3sim.run(mi300x, s, ["base", "rp_best"])
    rows = res.records()
    assert [r["policy"] for r in rows] == ["base", "rp_best"]
    for row in rows:
        assert not any(isinstance(v, (dict, list)) for v in row.values())
    # The rp_best sweep names its winner, and the row carries it as a dotted column.
    assert res["rp_best"].chosen.startswith("rp:")
    assert rows[1]["extra.chosen"] == res["rp_best"].chosen
    assert any(k.startswith("attribution.") for k in rows[0])
    assert len(res.records("iso_gemm")) >= 1 and len(res.records("env")) == 1
    with pytest.raises(ValueError):
        res.records("nonsense")


def test_records_make_a_dataframe(mi300x):
    pandas = pytest.importorskip("pandas")
    res = c3sim.run(mi300x, c3sim.paper_catalog()[:2], ["base", "sp"], attribution=False)
    df = pandas.DataFrame(res.records())
    assert df.shape[0] == 4
    assert list(df["policy"]) == ["base", "sp", "base", "sp"]
    assert (df["time_us"] > 0).all()


def test_run_program_equals_cli_jsonl(source_dir, cli, mi300x):
    path = source_dir / "examples/programs/ag_gemm_chain.yaml"
    program = c3sim.load_program(path)
    res = c3sim.run(mi300x, program, "base,sp,ficco_best")
    assert res.to_jsonl() == cli("run", path, "--policy", "base,sp,ficco_best", "--format", "jsonl")
    base = res["base"]
    assert base.step_us > 0 and base.serial_us >= base.ideal_us
    # ag -> gemm is one dependency chain: serial == ideal, no overlap to realize.
    assert base.overlap_percent is None
    assert res["ficco_best"].chosen.startswith("ficco:")
    kernels = res.records("kernel")
    assert {(k["policy"], k["name"]) for k in kernels if k["policy"] == "base"} == {("base", "ag"), ("base", "gemm")}
    assert all(k["end_us"] >= k["start_us"] >= k["ready_us"] for k in kernels)


def test_run_generated_program_uses_its_default_policies(mi300x):
    res = c3sim.run(mi300x, c3sim.generate("tp-block", tp=8), ["base", "sp"])
    assert [r.policy for r in res] == ["base", "sp"]
    assert res["sp"].step_us > 0


def test_bad_policy_raises_input_error(mi300x):
    s = c3sim.Scenario(catalog="mb1_896M_ag")
    with pytest.raises(c3sim.InputError) as err:
        c3sim.run(mi300x, s, ["no_such_policy"])
    assert err.value.file == "<c3sim.run policies>"
    # rp:<cus> must be a multiple of the CU mask granularity and leave CUs for the GEMM.
    with pytest.raises(c3sim.InputError):
        c3sim.run(mi300x, s, ["rp:100000"])
    with pytest.raises(TypeError):
        c3sim.run(mi300x, "not a scenario")


def test_policies_lists_the_registry(mi300x):
    table = {p["name"]: p for p in c3sim.policies(mi300x)}
    assert {"base", "sp", "dma", "rp", "ficco"} <= set(table)
    assert table["rp"]["argument"] == "cus" and table["base"]["argument"] == ""
    assert all(p["help"] for p in table.values())
    # rp_best tries powers of two of the CU-mask granularity below the 304 CUs.
    assert table["rp"]["sweep"] and all(n.startswith("rp:") for n in table["rp"]["sweep"])


def test_paper_matches_the_cli_json(cli, mi300x):
    report = c3sim.paper(mi300x)
    expected = json.loads(cli("paper", "--format", "json"))
    expected.pop("seconds", None)
    assert report == expected
    summary = report["summary"]
    # "% of ideal" as the paper computes it: (mean speedup - 1) / (mean ideal - 1).
    for s in summary.values():
        assert math.isclose(s["mean_percent_of_ideal"],
                            100 * (s["mean_speedup"] - 1) / (s["mean_ideal_speedup"] - 1), rel_tol=1e-9)
    # The paper's headline: DMA offload (ConCCL) realizes more of the ideal than any CU policy.
    assert summary["dma"]["mean_percent_of_ideal"] > summary["c3_best"]["mean_percent_of_ideal"]
    assert len(report["figure9"]) > 0 and all(r["dma_us"] > 0 for r in report["figure9"])
    with pytest.raises(c3sim.InputError) as err:
        c3sim.paper(mi300x, only="everything")
    assert err.value.key == "only"

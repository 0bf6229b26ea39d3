"""Scenarios and programs from Python: built from dicts, loaded from files, from the paper's
catalog, or generated; checked exactly like files."""

import pytest

import c3sim


def test_scenario_from_dict_reads_sizes_like_a_file():
    s = c3sim.Scenario(gemm=dict(m=8192, n=4096, k=2048, dtype="bf16"),
                       collective=dict(op="all_gather", bytes="896 MiB"), gpus=8, name="mine",
                       policies=["base", "sp"])
    assert s.name == "mine" and s.gpus == 8 and s.policies == ["base", "sp"]
    assert (s.gemm["m"], s.gemm["n"], s.gemm["k"], s.gemm["dtype"]) == (8192, 4096, 2048, "bf16")
    assert s.collective["bytes"] == 896 * 2**20
    assert s.collective["op"] == "all_gather" and s.collective["impl"] == "cu"
    # A Table I tag works as in a file: cb1 = 8192 x 8192 x 8192 (paper Table I).
    t = c3sim.Scenario(gemm="cb1", collective=dict(op="all_to_all", bytes=2**30))
    assert (t.gemm["m"], t.gemm["n"], t.gemm["k"]) == (8192, 8192, 8192)
    assert t.to_dict()["collective"]["bytes"] == 2**30


def test_scenario_yaml_round_trip(tmp_path):
    s = c3sim.Scenario(gemm=dict(m=4096, n=4096, k=4096, dtype="fp8"),
                       collective=dict(op="reduce_scatter", bytes="64 MiB", max_workgroups=32), name="rt")
    path = tmp_path / "s.yaml"
    path.write_text(s.to_yaml())
    (back,) = c3sim.load_scenarios(path)
    assert back.to_dict() == s.to_dict()


def test_scenario_errors_name_the_key():
    with pytest.raises(c3sim.InputError) as err:
        c3sim.Scenario(gemm=dict(m=8192, n=8192, k=8192, dtyp="bf16"),
                       collective=dict(op="all_gather", bytes="1 GiB"))
    assert "dtyp" in err.value.key
    with pytest.raises(c3sim.InputError) as err:
        c3sim.Scenario(gemm="cb1", collective=dict(op="all_gather", bytes=-4))
    assert err.value.key.endswith("collective.bytes")
    with pytest.raises(c3sim.InputError):
        c3sim.Scenario(catalog="mb1_896M")  # a Table II tag names two scenarios (ag and a2a)


def test_paper_catalog_is_table_two_twice():
    cat = c3sim.paper_catalog()
    # 15 Table II combinations x {all-gather, all-to-all}.
    assert len(cat) == 30
    assert cat[0].name == "mb1_896M_ag" and cat[15].name == "mb1_896M_a2a"
    assert c3sim.Scenario(catalog="mb1_896M_ag").to_dict() == cat[0].to_dict()


def test_load_scenarios_from_the_examples(source_dir):
    scenarios = c3sim.load_scenarios(source_dir / "examples/scenarios/custom_shapes.yaml")
    names = [s.name for s in scenarios]
    assert names[:2] == ["llama70b_qkv_fwd_128M_ag", "cb2_small_a2a"]
    assert scenarios[1].collective["max_workgroups"] == 56


def test_bad_yaml_names_file_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("scenarios:\n  - name: x\n    gemm: cb1\n    collective: {op: all_gather, bytes: 1 GiB}\n"
                    "    polcies: [base]\n")
    with pytest.raises(c3sim.InputError) as err:
        c3sim.load_scenarios(path)
    assert err.value.file == str(path)
    assert err.value.line == 5
    assert f"{path}:5" in str(err.value)
    path.write_text("scenarios: [\n")
    with pytest.raises(c3sim.InputError) as err:
        c3sim.load_scenarios(path)
    assert err.value.file == str(path) and err.value.line >= 1


def test_program_from_file_and_dict(source_dir):
    p = c3sim.load_program(source_dir / "examples/programs/ag_gemm_chain.yaml")
    assert p.name == "ag_then_gemm"
    assert [(k["name"], k["kind"], k["after"]) for k in p.kernels] == [
        ("ag", "collective", []), ("gemm", "gemm", ["ag"])]
    q = c3sim.Program({
        "name": "two", "streams": [{"name": "a"}, {"name": "b"}],
        "kernels": [{"name": "g", "stream": "a", "gemm": "cb1"},
                    {"name": "c", "stream": "b", "collective": {"op": "all_gather", "bytes": "64 MiB"}}]})
    assert [k["stream"] for k in q.kernels] == ["a", "b"]
    with pytest.raises(c3sim.InputError) as err:
        c3sim.Program({"name": "bad", "streams": [{"name": "a"}],
                       "kernels": [{"name": "g", "stream": "nowhere", "gemm": "cb1"}]})
    assert "stream" in err.value.key


def test_generate_matches_the_cli(cli):
    for kind, args in [("fsdp-layer", {}), ("tp-block", {"tp": 4}), ("moe-layer", {})]:
        program = c3sim.generate(kind, **args)
        flags = [f"--tp={args['tp']}"] if "tp" in args else []
        assert program.to_yaml() == cli("generate", kind, *flags)
    with pytest.raises(c3sim.InputError) as err:
        c3sim.generate("no-such-kind")
    assert err.value.key == "kind"
    with pytest.raises(c3sim.InputError) as err:
        c3sim.generate("moe-layer", model="llama-70b")
    assert err.value.key == "model"

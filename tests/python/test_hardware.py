"""Hardware models from Python: presets, fields read and set as a hardware file writes them."""

import pytest

import c3sim


def test_presets_load_with_their_node_shape():
    assert {"mi300x", "h200-sxm"} <= set(c3sim.presets())
    mi = c3sim.load_hardware("mi300x")
    # 8 x MI300X, 8 XCDs x 38 CUs = 304 CUs (REFERENCE.md).
    assert (mi.gpus, mi.cus) == (8, 304)
    h200 = c3sim.load_hardware("h200-sxm")
    assert (h200.gpus, h200.cus) == (8, 132)  # H200 SXM: 132 SMs


def test_get_set_round_trip_through_the_field_table(mi300x):
    key = "model.dispatch.c3_launch_gap"
    before = mi300x.get(key)
    assert before == mi300x.to_dict()[key]
    mi300x.set(key, "17 us")
    assert mi300x.get(key) == "17 us"
    # Numbers work for counts; the value reads back as the file would write it.
    mi300x.set("spec.dma.engines", 8)
    assert mi300x.get("spec.dma.engines") == "8"
    assert key in mi300x.fields()


def test_set_rejects_bad_values_and_leaves_the_model_unchanged(mi300x):
    key = "spec.memory.hbm_bandwidth"
    before = mi300x.get(key)
    with pytest.raises(c3sim.InputError) as err:
        mi300x.set(key, "-5 TB/s")
    assert err.value.key == key
    assert key in str(err.value)
    assert isinstance(err.value, ValueError)
    assert mi300x.get(key) == before
    with pytest.raises(c3sim.InputError):
        mi300x.get("spec.no_such_field")


def test_to_yaml_loads_back_to_the_same_model(mi300x):
    mi300x.update({"spec.dma.engines": 14, "model.dma.submit_latency": "2 us"})
    again = c3sim.Hardware.from_yaml(mi300x.to_yaml(), "roundtrip.yaml")
    assert again.to_dict() == mi300x.to_dict()
    assert again.get("model.dma.submit_latency") == "2 us"


def test_bad_hardware_file_names_file_and_line(tmp_path):
    path = tmp_path / "node.yaml"
    path.write_text("extends: mi300x\nspec:\n  memory:\n    hbm_bandwidth: fast\n")
    with pytest.raises(c3sim.InputError) as err:
        c3sim.load_hardware(path)
    assert err.value.file == str(path)
    assert err.value.line == 4
    assert err.value.key == "spec.memory.hbm_bandwidth"
    with pytest.raises(c3sim.InputError):
        c3sim.load_hardware("no-such-preset")


def test_a_changed_field_changes_the_simulation(mi300x):
    # Under sp the collective launches first and the GEMM one launch gap later, so a longer gap
    # delays the GEMM: sp's total must grow (base launches the GEMM first and hides the gap).
    s = c3sim.Scenario(catalog="mb1_896M_ag")
    fast = c3sim.run(mi300x, s, "sp", attribution=False)["sp"].time_us
    mi300x.set("model.dispatch.c3_launch_gap", "500 us")
    slow = c3sim.run(mi300x, s, "sp", attribution=False)["sp"].time_us
    assert slow > fast

"""examples/dma_architecture_fsdp.yaml and its table script (docs/dma-architecture.md,
the FSDP table): the sweep runs and the script turns its JSONL into one row per variant."""

import subprocess
import sys

import c3sim


def test_fsdp_study_table(source_dir, tmp_path):
    study = source_dir / "examples" / "dma_architecture_fsdp.yaml"
    out = tmp_path / "fsdp.jsonl"
    out.write_text(c3sim.sweep_text(study, threads=2, format="jsonl"))
    records = out.read_text().splitlines()
    # An env record, then 15 variants x 1 program x 4 policies (base, sp, prio, dma).
    assert len(records) == 1 + 15 * 4
    script = source_dir / "examples" / "dma_architecture_fsdp_table.py"
    table = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, check=True)
    lines = table.stdout.splitlines()
    assert lines[0].startswith("llama-70b_fsdp_layer, MI300X: best CU policy ")
    rows = [line.split(" | ") for line in lines if line.startswith("| ") and not line.startswith("| ---")][1:]
    assert [r[0][2:] for r in rows][:2] == ["host_preset", "gpu_launch"] and len(rows) == 15
    # The preset over itself.
    assert rows[0][2] == "1.000"

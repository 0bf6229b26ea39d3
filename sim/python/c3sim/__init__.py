"""c3sim: simulate concurrent GEMM + collective execution (C3) on multi-GPU nodes.

The Python face of the c3sim library (the same functions `c3sim` the command line calls):

    import c3sim
    hw = c3sim.load_hardware("mi300x")            # a preset or a hardware YAML file
    hw.set("model.dispatch.c3_launch_gap", "6 us")  # any hardware-file key, checked like the file
    s = c3sim.Scenario(gemm=dict(m=8192, n=8192, k=8192, dtype="bf16"),
                       collective=dict(op="all_gather", bytes="896 MiB"))
    res = c3sim.run(hw, s, policies=["base", "sp", "dma"])
    res["sp"].time_us, res["sp"].percent_of_ideal
    rows = res.records()                            # flat dicts: pandas.DataFrame(rows)

Errors in the input raise c3sim.InputError (a ValueError naming file, line and key).
"""

import csv
import io

from ._core import (
    C3Result,
    Hardware,
    InputError,
    ModelError,
    Program,
    ProgramResult,
    Results,
    Scenario,
    __version__,
    generate,
    load_hardware,
    load_program,
    load_programs,
    load_scenarios,
    paper,
    paper_catalog,
    policies,
    presets,
    run,
    sweep_text,
)

__all__ = [
    "C3Result",
    "Hardware",
    "InputError",
    "ModelError",
    "Program",
    "ProgramResult",
    "Results",
    "Scenario",
    "generate",
    "load_hardware",
    "load_program",
    "load_programs",
    "load_scenarios",
    "paper",
    "paper_catalog",
    "policies",
    "presets",
    "run",
    "sweep",
    "sweep_text",
]

# Columns of `c3sim sweep`'s CSV that hold numbers (the varied fields keep the text the file wrote,
# "100 GB/s", and the names stay strings). A sweep over programs has the program columns; one over
# scenarios and programs both, each row leaving the other kind's empty (None here).
_INT_COLUMNS = {"point", "variant", "gpus", "bytes"}
_FLOAT_COLUMNS = {
    "time_us",
    "gemm_us",
    "coll_us",
    "iso_gemm_us",
    "iso_coll_us",
    "speedup",
    "ideal_speedup",
    "percent_of_ideal",
    "step_us",
    "serial_us",
    "ideal_us",
    "overlap_percent",
}


def sweep(source, threads=0):
    """Runs a sweep (a sweep YAML path or a dict of the same keys) and returns its rows.

    One dict per point, with the columns and values of the CSV `c3sim sweep` writes (point,
    variant, name, each varied field as written, scenario, policy, chosen, gpus, bytes, times in us,
    speedups, percent_of_ideal; for programs: program, step_us, serial_us, ideal_us,
    overlap_percent), numbers as int/float, empty cells as None. threads=0 uses every core; the
    rows are the same for any thread count. pandas.DataFrame(rows) takes them directly.
    """
    text = sweep_text(source, threads=threads, format="csv")
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        for key in row:
            if row[key] == "" and (key in _INT_COLUMNS or key in _FLOAT_COLUMNS):
                row[key] = None
            elif key in _INT_COLUMNS:
                row[key] = int(row[key])
            elif key in _FLOAT_COLUMNS:
                row[key] = float(row[key])
        rows.append(row)
    return rows

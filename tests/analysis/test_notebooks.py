"""Every notebook in notebooks/ runs without error, still gives its stored outputs, and the
table of means it shows first is the data's means (recomputed here from the results folder it
wrote, with pandas and scipy).

The notebooks are committed with their outputs (the documentation site and the repository
show them); `python tools/render_notebooks.py` re-renders them after a change that moves
their numbers."""

import os
from io import StringIO
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from nbclient import NotebookClient
from scipy import stats

import gridsim

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
TEXT = ("text/plain", "text/html")
#: Per notebook: the results folder (under the notebook's ``OUT``) of its first table of
#: means, shown by code cell 2, and the runs it averages.
FIRST_TABLE = {
    "01-single-job-criteria": ("window-search", lambda runs: runs),
    "02-backfilling-policies": ("static", lambda runs: runs),
    "03-batch-and-cloud": ("batch", lambda runs: runs[runs["counted"]]),
}
#: Appended to the notebook: prints where it wrote its results and the table cell 2 showed.
SHOWN = nbformat.v4.new_code_cell(
    'print("SHOWN", OUT, Out[2].to_json(orient="split", double_precision=15))'
)


def test_the_three_notebooks_are_there():
    assert [p.stem for p in NOTEBOOKS] == [
        "01-single-job-criteria", "02-backfilling-policies", "03-batch-and-cloud",
    ]  # fmt: skip


def _texts(cell) -> list[tuple[str, str]]:
    """A cell's text outputs (images are left out: they depend on the font stack)."""
    texts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            texts.append((output["name"], output["text"]))
        for kind in TEXT:
            if kind in output.get("data", {}):
                texts.append((kind, output["data"][kind]))
    return texts


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_gives_its_stored_outputs(path, monkeypatch):
    stored = nbformat.read(path, as_version=4)
    code = [cell for cell in stored.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), (
        f"{path.name} is not stored as one run from the top: python tools/render_notebooks.py"
    )
    assert any("image/png" in output.get("data", {}) for cell in code for output in cell.outputs), (
        f"{path.name} is stored without its figures"
    )
    fresh = nbformat.read(path, as_version=4)
    fresh.cells.append(SHOWN)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    client = NotebookClient(fresh, timeout=110, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    client.execute(env={**os.environ, "MPLBACKEND": "Agg"})
    shown = fresh.cells.pop()
    for index, (old, new) in enumerate(zip(stored.cells, fresh.cells, strict=True)):
        assert _texts(new) == _texts(old), (
            f"{path.name}, cell {index}: the outputs changed; if that is expected, "
            "re-render with python tools/render_notebooks.py"
        )
    _, out, table = shown.outputs[0]["text"].split(" ", 2)
    folder, select = FIRST_TABLE[path.stem]
    _check_means(pd.read_json(StringIO(table), orient="split"),
                 select(gridsim.load_results(Path(out) / folder).runs))  # fmt: skip


def _t_half(values: pd.Series) -> float:
    return float(stats.t.ppf(0.975, len(values) - 1) * stats.sem(values))


def _check_means(table: pd.DataFrame, runs: pd.DataFrame) -> None:
    """Every ``<metric>_mean`` and ``<metric>_ci95`` of ``table`` is its group's mean and
    Student-t 95% half-width over its finite values (the t quantile is tabled to 9
    decimals: relative 2.5e-10)."""
    keys = [c for c in table.columns if c in runs.columns]
    metrics = [c.removesuffix("_mean") for c in table.columns if c.endswith("_mean")]
    assert "policy" in keys and metrics
    groups = runs.groupby(keys, sort=False)
    expected = groups[metrics].mean().loc[pd.MultiIndex.from_frame(table[keys])
                                          if len(keys) > 1 else table["policy"]]  # fmt: skip
    for metric in metrics:
        np.testing.assert_allclose(table[f"{metric}_mean"], expected[metric], rtol=1e-12)
        half = groups[metric].agg(lambda v: _t_half(v.dropna()))
        half = half.loc[expected.index]
        np.testing.assert_allclose(table[f"{metric}_ci95"], half, rtol=2.5e-10)
    assert table["runs"].tolist() == groups.size().loc[expected.index].tolist()

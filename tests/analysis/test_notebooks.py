"""Every notebook in notebooks/ executes without error (outputs are not kept)."""

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_the_three_notebooks_are_there():
    assert [p.stem for p in NOTEBOOKS] == [
        "01-single-job-criteria", "02-backfilling-policies", "03-batch-and-cloud",
    ]  # fmt: skip


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_and_is_committed_without_outputs(path, monkeypatch):
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    client = NotebookClient(notebook, timeout=110, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    client.execute(env={**os.environ, "MPLBACKEND": "Agg"})

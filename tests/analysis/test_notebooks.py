"""Every notebook in notebooks/ runs without error and still gives its stored outputs.

The notebooks are committed with their outputs (the documentation site and the repository
show them); `python tools/render_notebooks.py` re-renders them after a change that moves
their numbers."""

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
TEXT = ("text/plain", "text/html")


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
    monkeypatch.setenv("MPLBACKEND", "Agg")
    client = NotebookClient(fresh, timeout=110, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    client.execute(env={**os.environ, "MPLBACKEND": "Agg"})
    for index, (old, new) in enumerate(zip(stored.cells, fresh.cells, strict=True)):
        assert _texts(new) == _texts(old), (
            f"{path.name}, cell {index}: the outputs changed; if that is expected, "
            "re-render with python tools/render_notebooks.py"
        )

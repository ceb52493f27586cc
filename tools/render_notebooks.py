"""Run every notebook of notebooks/ and store its outputs in the file (tables, figures).

The documentation site and the repository show the notebooks with these outputs;
tests/analysis/test_notebooks.py runs each notebook again and checks that its text outputs
are still the stored ones. Run this after a change that moves the notebooks' numbers:

    python tools/render_notebooks.py            # all notebooks
    python tools/render_notebooks.py 02         # those whose name contains "02"

Execution timings are not recorded, so a re-run that gives the same outputs leaves the files
unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def render(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` executed in its folder, outputs in its cells."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    client.execute()
    return notebook


def main(patterns: list[str]) -> None:
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        if patterns and not any(pattern in path.name for pattern in patterns):
            continue
        nbformat.write(render(path), path)
        print(f"rendered {path.relative_to(NOTEBOOKS.parent)}")


if __name__ == "__main__":
    main(sys.argv[1:])

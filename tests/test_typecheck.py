"""gridsim's types reach its users: mypy passes on examples/, the notebooks' code and a user
script on the public API, and reports a type error made in that script.

mypy sees gridsim as an installed package (through a ``.pth`` file in a scratch
environment, as after ``pip install``), so the types it checks against are those the
``py.typed`` marker publishes; gridsim's own modules are not checked here.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
USER_SCRIPT = ROOT / "tests" / "typecheck" / "user_script.py"


def installed_python(folder: Path) -> Path:
    """A Python (a scratch environment in ``folder``) whose site-packages hold gridsim (the
    repository) and this environment's packages, as a ``.pth`` file lists them."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder / "env"], check=True)
    python = folder / "env" / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], capture_output=True, text=True,
                             check=True).stdout.strip()  # fmt: skip
    paths = [ROOT, sysconfig.get_paths()["purelib"]]
    (Path(purelib) / "gridsim-and-dependencies.pth").write_text("".join(f"{p}\n" for p in paths))
    return python


def mypy(folder: Path, *paths: Path) -> subprocess.CompletedProcess:
    """mypy on ``paths`` against gridsim installed (names printed relative to ``folder``)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--python-executable", installed_python(folder),
         "--cache-dir", folder / "mypy-cache", "--no-error-summary", *paths],
        capture_output=True, text=True, timeout=300, check=False, cwd=folder,
    )  # fmt: skip


def notebooks_code(folder: Path) -> Path:
    """The code cells of every notebook, one module each (IPython's % lines left out)."""
    (folder / "notebooks").mkdir()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = [cell.source for cell in nbformat.read(notebook, as_version=4).cells
                 if cell.cell_type == "code"]  # fmt: skip
        code = "\n".join(line for cell in cells for line in cell.splitlines()
                         if not line.startswith("%"))  # fmt: skip
        (folder / "notebooks" / f"nb_{notebook.stem.replace('-', '_')}.py").write_text(code)
    return folder / "notebooks"


def test_mypy_passes_on_examples_notebooks_and_a_user_script_and_reports_an_error_in_it(
    tmp_path,
):
    wrong = tmp_path / "wrong_script.py"  # the user script with two mistakes added
    wrong.write_text(USER_SCRIPT.read_text() + (
        "\n\nscenario = gridsim.load_scenario(SCENARIO)\n"
        'gridsim.run(scenario, replications="five")\n'
        "count: int = gridsim.validate(scenario)\n"
    ))  # fmt: skip
    lines = len(USER_SCRIPT.read_text().splitlines())
    checked = mypy(tmp_path, ROOT / "examples", USER_SCRIPT, notebooks_code(tmp_path), wrong)
    assert checked.stderr == ""
    assert checked.stdout.splitlines() == [
        f'{wrong.name}:{lines + 4}: error: Argument "replications" to "run" has incompatible '
        'type "str"; expected "int | range | None"  [arg-type]',
        f"{wrong.name}:{lines + 5}: error: Incompatible types in assignment (expression has "
        'type "Experiment", variable has type "int")  [assignment]',
    ]
    assert runpy.run_path(str(USER_SCRIPT), run_name="__main__")  # and the script runs

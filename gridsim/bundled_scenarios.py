"""The example scenarios that ship inside the package, found by name wherever gridsim is
installed: ``gridsim run window-search``, ``gridsim scenarios``, ``gridsim init``, and the
scenarios ``gridsim reproduce`` runs.

They are ``gridsim/scenarios/*.yaml`` (``scenarios/`` of a clone links there) and the
quick-start ``gridsim/data/quickstart.yaml``, which ``gridsim run`` runs without an argument.
A name is a file's stem; a command's SCENARIO argument is a file first, a bundled name second.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from gridsim.errors import UserError

PACKAGE = Path(__file__).resolve().parent
#: The folder of the bundled scenarios (package data).
FOLDER = PACKAGE / "scenarios"
QUICKSTART = "quickstart"


def bundled() -> dict[str, Path]:
    """Every bundled scenario by name: the quick-start first, then the rest by name."""
    found = {QUICKSTART: PACKAGE / "data" / "quickstart.yaml"}
    found.update((path.stem, path) for path in sorted(FOLDER.glob("*.yaml")))
    return found


def bundled_path(name: str, unknown: str = "not a bundled scenario") -> Path:
    """The file of the bundled scenario ``name`` (``window-search`` or ``window-search.yaml``);
    a UserError saying ``unknown`` and naming the bundled ones otherwise."""
    scenarios = bundled()
    stem = Path(name).name.removesuffix(".yaml")
    if Path(name).name == name and stem in scenarios:
        return scenarios[stem]
    if stem in scenarios:
        hint = f"; the bundled scenario {stem!r} is run by name: gridsim run {stem}"
    else:
        close = difflib.get_close_matches(stem, scenarios, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UserError(name, f"{unknown}{hint} (bundled: {', '.join(scenarios)}; gridsim "
                          "scenarios describes them)")  # fmt: skip


def scenario_file(argument: str) -> Path:
    """A command's SCENARIO argument as a file: the path if it exists, else the bundled
    scenario of that name."""
    path = Path(argument).expanduser()
    return path if path.exists() else bundled_path(argument, "no such file, nor a bundled scenario")


def summary(text: str) -> tuple[str, str]:
    """(kind, one-line description) of a scenario's YAML text: its ``description``, else the
    first line of its opening comment."""
    from gridsim.config import read_yaml

    document, _ = read_yaml(text)
    description = str(document.get("description") or "")
    if not description:
        comments = [line for line in text.splitlines() if line.strip()]
        first = comments[0].strip() if comments else ""
        description = first.lstrip("#").strip() if first.startswith("#") else ""
    return str(document.get("kind", "?")), description


def listing() -> list[tuple[str, str, str]]:
    """(name, kind, description) of every bundled scenario (``gridsim scenarios``)."""
    return [(name, *summary(path.read_text())) for name, path in bundled().items()]


def copy_bundled(name: str, folder: Path) -> Path:
    """Copy the bundled scenario ``name`` into ``folder`` (made if missing) as ``NAME.yaml``;
    a UserError, nothing written, if that file exists or ``folder`` is not a folder."""
    source = bundled_path(name)
    if folder.exists() and not folder.is_dir():
        raise UserError(folder, "exists and is not a folder; name a folder to copy into")
    target = folder / source.name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with target.open("xb") as copy:  # "x": never replaces a file, even one made just now
            copy.write(source.read_bytes())
    except FileExistsError:
        raise UserError(target, "exists; gridsim init does not overwrite (remove it, or name "
                                "another folder)") from None  # fmt: skip
    return target

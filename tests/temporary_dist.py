"""Install a package's entry points without pip or network: a ``.dist-info`` folder on
``sys.path`` is all ``importlib.metadata`` looks for."""

from __future__ import annotations

from pathlib import Path


def install_entry_points(
    site: Path, distribution: str, groups: dict[str, dict[str, str]], monkeypatch
) -> Path:
    """A distribution ``distribution`` declaring ``groups`` (group -> name -> ``module:Class``)
    in ``site``, which is put first on ``sys.path`` (undone by ``monkeypatch``)."""
    info = site / f"{distribution}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    lines = []
    for group, entries in groups.items():
        lines.append(f"[{group}]")
        lines.extend(f"{name} = {value}" for name, value in entries.items())
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(site))
    return info

"""tools/doc_images.py draws every figure of the documentation, and the captions state the
replications the figures are drawn from."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import doc_images  # noqa: E402


def test_the_script_draws_every_documented_figure(tmp_path):
    doc_images.main(["--small", "--out", str(tmp_path / "images"),
                     "--results", str(tmp_path / "results")])  # fmt: skip
    drawn = sorted(path.name for path in (tmp_path / "images").iterdir())
    assert drawn == sorted(doc_images.FIGURES)
    assert all((tmp_path / "images" / name).stat().st_size > 5000 for name in drawn)
    assert sorted(path.name for path in (ROOT / "docs" / "images").glob("*.png")) == drawn


def test_every_caption_states_the_replications_of_its_figure():
    text = (ROOT / "docs" / "analysis.md").read_text() + (ROOT / "docs" / "sweeps.md").read_text()
    for name, run in doc_images.FIGURES.items():
        match = re.search(rf"!\[[^\]]*\]\(images/{re.escape(name)}\)\s*\*(.+?)\*", text, re.S)
        assert match, f"docs/analysis.md or sweeps.md shows {name} without a caption"
        replications = doc_images.RUNS[run].replications
        assert f"{replications} replication" in match.group(1), (name, match.group(1))

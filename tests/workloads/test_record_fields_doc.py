"""docs/workloads.md lists the record fields every reader gives, as
``gridsim.workloads.records.RECORD_FIELDS`` defines them (name, type, meaning)."""

from pathlib import Path

from gridsim.workloads.records import RECORD_FIELDS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "workloads.md"


def test_the_record_table_of_the_docs_is_the_code_s():
    text = PAGE.read_text()
    table = text[text.index("## The job record") : text.index("## Slurm accounting dumps")]
    rows = [line.split("|")[1:4] for line in table.splitlines() if line.startswith("| `")]
    documented = [(name.strip(" `"), kind.strip(), meaning.strip()) for name, kind, meaning in rows]
    assert [(name, kind) for name, kind, _ in documented] == [
        (name, kind) for name, kind, _ in RECORD_FIELDS
    ]
    for (_, _, meaning), (name, _, code_meaning) in zip(documented, RECORD_FIELDS, strict=True):
        assert meaning.startswith(code_meaning.split(" (")[0]), name

"""Small helpers to write hand-made SWF files in tests."""

from pathlib import Path

from gridsim.workloads.swf import SWF_COLUMNS

DATA = Path(__file__).resolve().parents[1] / "data" / "swf"
EXCERPTS = sorted(DATA.glob("*.swf"))


def swf_line(**fields: float) -> str:
    """One job line; fields not given are -1 (unknown)."""
    unknown = set(fields) - set(SWF_COLUMNS)
    assert not unknown, f"not SWF fields: {unknown}"
    return " ".join(str(fields.get(name, -1)) for name in SWF_COLUMNS)


def job(job_id: int, submit: float, run: float, procs: int, estimate: float, **more) -> str:
    """A typical job line: requested = allocated = procs, completed (status 1), user 1."""
    fields = dict(
        job_id=job_id,
        submit_time=submit,
        wait_time=0,
        run_time=run,
        allocated_processors=procs,
        requested_processors=procs,
        requested_time=estimate,
        status=1,
        user_id=1,
    )
    fields.update(more)
    return swf_line(**fields)


def write_log(path: Path, lines: list[str], header: str = "; MaxProcs: 8\n") -> Path:
    path.write_text(header + "\n".join(lines) + "\n")
    return path

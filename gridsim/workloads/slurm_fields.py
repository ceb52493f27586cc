"""The field formats of Slurm's accounting (``sacct``), parsed a column at a time.

Consumes Arrow string columns as ``sacct --parsable2`` prints them (the Slurm reader splits
the dump with Arrow's CSV parser); produces NumPy numbers (seconds, MiB, counts) with NaN
where Slurm says a value is unknown, and a mask of the values that are not of the field's
form (the reader names the first one's file and line). Every parser is a few Arrow compute
calls over the whole column: no Python loop over jobs.

Forms, from the sacct and sbatch manual pages:

* times (Submit, Start, End): epoch seconds (``SLURM_TIME_FORMAT=%s``) or
  ``YYYY-MM-DDTHH:MM:SS`` in the cluster's local time; ``Unknown``, ``None`` and empty are
  unknown;
* durations (Timelimit, Elapsed): ``minutes``, ``minutes:seconds``,
  ``hours:minutes:seconds``, ``days-hours``, ``days-hours:minutes``,
  ``days-hours:minutes:seconds`` (a fraction of a second after a dot is dropped);
  ``UNLIMITED``, ``Partition_Limit``, ``INVALID`` and empty are no limit (unknown);
* trackable resources (AllocTRES, ReqTRES): ``name=value`` pairs joined by commas, e.g.
  ``billing=4,cpu=4,gres/gpu=2,mem=16G,node=1``; memory in K, M, G, T or P (powers of
  1024; no unit is M), GPUs as ``gres/gpu`` (or only typed, ``gres/gpu:a100``, summed);
* memory (ReqMem): a size with an optional ``n`` (per node) or ``c`` (per CPU) suffix;
* exit codes (ExitCode): ``code:signal``;
* node lists (NodeList): hostlist expressions such as ``cn[001-004,007],gpu1``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: MiB per unit of a Slurm memory size.
MEMORY_UNITS_MIB = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}
#: Words sacct prints where a time or a limit is not known.
UNKNOWN_WORDS = ("", "Unknown", "None", "UNLIMITED", "Partition_Limit", "INVALID")
#: sacct State (its first word) -> SWF status: 1 completed, 0 failed or killed, 5
#: cancelled; others (pending, running, requeued, suspended) are unknown (-1).
STATE_STATUS = {
    "COMPLETED": 1,
    "FAILED": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0, "TIMEOUT": 0, "BOOT_FAIL": 0,
    "DEADLINE": 0, "PREEMPTED": 0, "REVOKED": 0,
    "CANCELLED": 5,
}  # fmt: skip
_DURATION = r"^(?:(?P<d>\d+)-)?(?P<a>\d+)(?::(?P<b>\d+))?(?::(?P<c>\d+))?(?:\.\d+)?$"
_TRES_ITEM = r"[A-Za-z][\w/:.\-]*=[^,=]*"
_TRES = rf"^(?:{_TRES_ITEM}(?:,{_TRES_ITEM})*)?$"
_SIZE = r"^(?P<amount>\d+(?:\.\d+)?)(?P<unit>[KMGTP]?)(?P<per>[nc]?)$"


def by_distinct(parse):
    """``parse`` run on a column's distinct values only, its results spread back over the
    rows: sacct repeats a few time limits, states, TRES lists and memory requests over and
    over, so this parses a few hundred strings instead of every job's."""

    @functools.wraps(parse)
    def parse_distinct(column: pa.Array, *args, **options):
        encoded = pc.dictionary_encode(column)
        if len(encoded.dictionary) * 2 > len(column):  # mostly distinct: nothing to gain
            return parse(column, *args, **options)
        rows = encoded.indices.to_numpy(zero_copy_only=False)
        parsed = parse(encoded.dictionary, *args, **options)
        if isinstance(parsed, np.ndarray):
            return parsed[rows]
        if isinstance(parsed, tuple):
            return tuple(_spread(part, rows) for part in parsed)
        return _spread(parsed, rows)

    return parse_distinct


def _spread(parsed, rows: np.ndarray):
    if isinstance(parsed, np.ndarray):
        return parsed[rows]
    values = {f.name: getattr(parsed, f.name)[rows] for f in dataclasses.fields(parsed)}
    return type(parsed)(**values)


@dataclass(frozen=True)
class Parsed:
    """Numbers parsed from a column, and where a value was not of the column's form."""

    values: np.ndarray
    bad: np.ndarray


def strip(column: pa.Array) -> pa.Array:
    return pc.utf8_trim_whitespace(column)


def _floats(array: pa.Array) -> np.ndarray:
    """An Arrow array as float64, NaN where null."""
    return pc.cast(array, pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64)


def _known(column: pa.Array) -> np.ndarray:
    """Where the value is not one of sacct's words for unknown."""
    return ~pc.is_in(column, value_set=pa.array(UNKNOWN_WORDS)).to_numpy(zero_copy_only=False)


def _groups(column: pa.Array, pattern: str) -> dict[str, pa.Array]:
    """The named groups of ``pattern`` in each value (null where it does not match, and
    where an optional group did not take part)."""
    matched = pc.extract_regex(column, pattern)
    names = re.findall(r"\(\?P<(\w+)>", pattern)
    result = {}
    for name in names:
        field = pc.struct_field(matched, name)
        result[name] = pc.if_else(pc.equal(field, ""), None, field)
    return result


@by_distinct
def numbers(column: pa.Array) -> Parsed:
    """Plain numbers; sacct's unknown words are NaN."""
    text = strip(column)
    known = _known(text)
    numeric = pc.match_substring_regex(text, r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
    numeric = numeric.to_numpy(zero_copy_only=False)
    values = _floats(pc.if_else(numeric, text, None))
    return Parsed(values, known & ~numeric)


def times(column: pa.Array, time_zone: str = "UTC") -> Parsed:
    """Epoch seconds of a time column (epoch numbers or local ISO times in ``time_zone``;
    an hour a change to winter time repeats is read as its first, summer-time, instant)."""
    text = strip(column)
    stamps = pc.strptime(text, format="%Y-%m-%dT%H:%M:%S", unit="s", error_is_null=True)
    if time_zone != "UTC":
        stamps = pc.assume_timezone(stamps, timezone=time_zone, ambiguous="earliest",
                                    nonexistent="latest")  # fmt: skip
    values = _floats(pc.cast(pc.cast(stamps, pa.timestamp("s")), pa.int64()))
    others = np.isnan(values)
    if others.any():  # epoch seconds, or sacct's words for unknown
        rest = pc.filter(text, pa.array(others))
        epoch = pc.match_substring_regex(rest, r"^\d+$")
        values[others] = _floats(pc.if_else(epoch, rest, None))
    return Parsed(values, _known(text) & np.isnan(values))


@by_distinct
def durations(column: pa.Array, minutes_alone: bool = True) -> Parsed:
    """Seconds of a duration column (Slurm's forms, module docstring). ``minutes_alone``:
    one or two numbers without days are minutes[:seconds] (a time limit as sbatch takes
    it); otherwise a bare number is seconds and h:m:s the only form without days
    (Elapsed)."""
    text = strip(column)
    known = _known(text)
    parts = {name: _floats(values) for name, values in _groups(text, _DURATION).items()}
    days, a, b, c = parts["d"], parts["a"], parts["b"], parts["c"]
    zero = np.nan_to_num
    with_days = days * 86400 + a * 3600 + zero(b) * 60 + zero(c)
    three = a * 3600 + b * 60 + c  # hours:minutes:seconds
    if minutes_alone:
        alone = np.where(np.isnan(b), a * 60, a * 60 + b)  # minutes[:seconds]
    else:
        alone = np.where(np.isnan(b), a, np.nan)  # a bare number: seconds
    seconds = np.where(~np.isnan(days), with_days, np.where(~np.isnan(c), three, alone))
    seconds = np.where(known, seconds, np.nan)
    return Parsed(seconds, known & np.isnan(seconds))


@dataclass(frozen=True)
class Tres:
    """The trackable resources of a TRES column: cpu, memory (MiB), nodes, GPUs (NaN where
    a job's string does not name them), and where a string is not a TRES list."""

    cpus: np.ndarray
    memory_mib: np.ndarray
    nodes: np.ndarray
    gpus: np.ndarray
    bad: np.ndarray


@by_distinct
def tres(column: pa.Array) -> Tres:
    """The cpu, mem, node and GPU counts of a TRES column (module docstring)."""
    text = strip(column)
    bad = ~pc.match_substring_regex(text, _TRES).to_numpy(zero_copy_only=False)
    counts = {}
    for name, key in (("cpus", "cpu"), ("nodes", "node"), ("gpus", "gres/gpu")):
        value = _groups(text, rf"(?:^|,){re.escape(key)}=(?P<v>[^,]*)")["v"]
        whole = pc.fill_null(pc.match_substring_regex(value, r"^\d+$"), False)
        counts[name] = _floats(pc.if_else(whole, value, None))
        present = pc.is_valid(value).to_numpy(zero_copy_only=False)
        bad |= present & ~whole.to_numpy(zero_copy_only=False)
    typed = pc.match_substring(text, "gres/gpu:").to_numpy(zero_copy_only=False)
    for row in np.flatnonzero(typed & np.isnan(counts["gpus"])):  # only typed GPUs: summed
        found = re.findall(r"(?:^|,)gres/gpu:[^=,]+=(\d+)", text[int(row)].as_py())
        counts["gpus"][row] = sum(int(n) for n in found) if found else np.nan
    memory = _groups(text, r"(?:^|,)mem=(?P<v>[^,]*)")["v"]
    memory_mib, memory_bad = sizes(pc.fill_null(memory, ""))
    return Tres(counts["cpus"], memory_mib, counts["nodes"], counts["gpus"], bad | memory_bad)


def sizes(column: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """MiB of memory sizes (``16G``, ``4000``, ``2Gc``), and where a non-empty value is not
    one."""
    parts = _groups(column, _SIZE)
    unit = pc.fill_null(parts["unit"], "M")
    factor = np.zeros(len(column))
    for name, mib in MEMORY_UNITS_MIB.items():
        factor[pc.equal(unit, name).to_numpy(zero_copy_only=False)] = mib
    mib = _floats(parts["amount"]) * factor
    bad = pc.not_equal(column, "").to_numpy(zero_copy_only=False) & np.isnan(mib)
    return mib, bad


@by_distinct
def memory_requests(column: pa.Array) -> tuple[Parsed, np.ndarray]:
    """ReqMem: MiB, and whether per CPU (suffix ``c``; else per node)."""
    text = strip(column)
    known_text = pc.if_else(_known(text), text, "")
    mib, bad = sizes(known_text)
    per_cpu = pc.fill_null(pc.equal(_groups(known_text, _SIZE)["per"], "c"), False)
    return Parsed(mib, bad), per_cpu.to_numpy(zero_copy_only=False)


@by_distinct
def exit_codes(column: pa.Array) -> Parsed:
    """ExitCode ``code:signal`` as one number: the code, or 128 + the signal if a signal
    ended the job (the shell's convention); empty is unknown."""
    text = strip(column)
    parts = _groups(text, r"^(?P<code>\d+):(?P<signal>\d+)$")
    code, signal = _floats(parts["code"]), _floats(parts["signal"])
    values = np.where(signal > 0, 128 + signal, code)
    bad = pc.not_equal(text, "").to_numpy(zero_copy_only=False) & np.isnan(values)
    return Parsed(values, bad)


@by_distinct
def state_status(column: pa.Array) -> np.ndarray:
    """SWF status of sacct states (``CANCELLED by 1234`` is CANCELLED)."""
    first = _groups(strip(column), r"^(?P<word>[A-Z_]+)")["word"]
    status = np.full(len(column), np.nan)
    for state, value in STATE_STATUS.items():
        status[pc.fill_null(pc.equal(first, state), False).to_numpy(zero_copy_only=False)] = value
    return status


_HOST_GROUP = re.compile(r"([^,\[]*)(?:\[([^\]]*)\])?([^,\[]*)")


def expand_hostlist(expression: str) -> list[str]:
    """The host names of a Slurm hostlist (``cn[001-003,7],gpu1`` -> cn001 cn002 cn003 cn7
    gpu1; zero padding kept); ``None``, ``(null)`` and empty are no host."""
    text = expression.strip()
    if text in ("", "None", "(null)", "None assigned"):
        return []
    hosts: list[str] = []
    position = 0
    while position < len(text):
        match = _HOST_GROUP.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"not a node list: {expression!r}")
        prefix, ranges, suffix = match.groups()
        if ranges is None:
            hosts.append(prefix + suffix)
        else:
            for part in ranges.split(","):
                low, _, high = part.partition("-")
                if not low.isdigit() or (high and not high.isdigit()):
                    raise ValueError(f"not a node list: {expression!r}")
                width = len(low)
                for number in range(int(low), int(high or low) + 1):
                    hosts.append(f"{prefix}{number:0{width}d}{suffix}")
        position = match.end() + 1  # past the comma
    return hosts

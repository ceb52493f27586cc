"""The progress of a run on stderr: a live bar on a terminal, whole lines in a log.

Consumes the count of replications to run and the runner's updates; produces what the user
sees. ``progress=None`` (the default of ``gridsim run`` and :func:`gridsim.run`) shows a bar
only when stderr is a terminal, so a run redirected into a file (a batch job's log) writes
nothing; ``True`` forces progress where stderr is not a terminal, as whole lines (no carriage
returns), at most one per :data:`LOG_INTERVAL_S` and the last once; ``False`` shows nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Protocol

#: Seconds between two progress lines in a log (the last line is always written).
LOG_INTERVAL_S = 10.0
#: A line in a log: ``cp: 8/20 rep (40%) in 00:12, ETA 00:18, 2 local processes``.
LOG_FORMAT = (
    "{desc}: {n_fmt}/{total_fmt} {unit} ({percentage:.0f}%) in {elapsed}, ETA {remaining}{postfix}"
)


class Progress(Protocol):
    def update(self, n: int) -> object: ...

    def close(self) -> None: ...


def progress_bar(total: int, name: str, where: str, progress: bool | None = None,
                 stream: IO[str] | None = None) -> Progress:  # fmt: skip
    """What shows the progress of ``total`` replications of experiment ``name`` run by
    ``where`` (the executor), on ``stream`` (default stderr)."""
    stream = sys.stderr if stream is None else stream
    terminal = is_terminal(stream)
    if not (terminal if progress is None else progress):
        return NoProgress()
    if terminal:
        from tqdm import tqdm

        return tqdm(total=total, desc=name, unit="rep", postfix=where, file=stream)
    return LogProgress(total, name, where, stream)


class NoProgress:
    """Progress nobody sees (a quiet run, a log not asked for): nothing to import or draw."""

    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


class LogProgress:
    """Progress as whole lines for a log file: one when :data:`LOG_INTERVAL_S` has passed
    since the last, and the final count once, on :meth:`close`."""

    def __init__(self, total: int, name: str, where: str, stream: IO[str],
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.total, self.name, self.where, self.stream, self.clock = (
            total, name, where, stream, clock,
        )  # fmt: skip
        self.done = 0
        self.started = self.written = clock()
        self.closed = False

    def update(self, n: int) -> None:
        self.done += n
        if self.clock() - self.written >= LOG_INTERVAL_S:
            self._write()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._write()

    def _write(self) -> None:
        from tqdm import tqdm

        now = self.clock()
        line = tqdm.format_meter(self.done, self.total, now - self.started, prefix=self.name,
                                 unit="rep", postfix=self.where, bar_format=LOG_FORMAT)  # fmt: skip
        self.stream.write(line + "\n")
        self.stream.flush()
        self.written = now

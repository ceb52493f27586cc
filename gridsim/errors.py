"""How the ``gridsim`` command ends on an error: one line and an exit code that says whose.

Consumes an exception that stopped a command; produces the line printed on stderr and the exit
code. A *user error* (a scenario, option, log, results folder or output path that cannot be
used as given) is ``gridsim: error: <where>: <what is wrong>`` with exit code 2: the message
names the file and the field, or the file and the line. Anything else is a bug in gridsim
(or in a library it calls): exit code 1 and one line saying where the full traceback was
written; a command's ``--debug`` flag prints it as well.

Which exceptions are user errors is decided here, once (:func:`is_user_error`): the modules
that read input raise their own one-line error types, and this module lists them.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

#: Exit codes: a user error, a bug, Ctrl-C (128 + SIGINT, as shells report it).
USER_ERROR, INTERNAL_ERROR, INTERRUPTED = 2, 1, 130


class UserError(Exception):
    """Input gridsim cannot use as given: ``where`` (a file, a field, an option) and ``what``.

    Raise it from command code; the command line prints ``gridsim: error: where: what``.
    """

    def __init__(self, where: str | os.PathLike[str], what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where, self.what = str(where), what

    def __reduce__(self):  # rebuilt from its two fields when sent back from a worker
        return (type(self), (self.where, self.what))


def user_error_types() -> tuple[type[BaseException], ...]:
    """The exception types whose message is meant for the user as is (imported on demand,
    so that the command starts fast)."""
    from gridsim.analysis.results import ResultsError
    from gridsim.config import ScenarioError
    from gridsim.experiments.cells import CellsError
    from gridsim.experiments.executors import ExecutorError
    from gridsim.experiments.store import StoreError
    from gridsim.plugins import PluginError, PluginLoadError
    from gridsim.selection.registry import CriterionError
    from gridsim.workloads.swf import SwfFormatError

    return (UserError, ScenarioError, CellsError, ExecutorError, StoreError, PluginError,
            PluginLoadError, CriterionError, SwfFormatError, ResultsError)  # fmt: skip


def is_user_error(error: BaseException) -> bool:
    """Whether ``error`` is the user's to fix: one of :func:`user_error_types`, or a file
    that cannot be read or written (it carries the file's name)."""
    if isinstance(error, OSError) and error.filename is not None:
        return True
    return isinstance(error, user_error_types())


#: What a write can fail with, whatever file the error names (``shutil.copyfile`` names the
#: file it reads from): a full disk, a file size limit (``ulimit -f``), a full quota.
_WRITE_ERRNOS = frozenset((errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)))


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Name ``path`` in a failure to write it: the OSError of a write carries no file name,
    and without one a full disk would be reported as a bug in gridsim. A file the failed
    write created is removed (a part of an output would pass for the whole)."""
    existed = os.path.lexists(path)
    try:
        yield
    except OSError as error:
        if not existed and os.path.isfile(path):
            with contextlib.suppress(OSError):
                os.remove(path)
        if error.filename is not None and error.errno not in _WRITE_ERRNOS:
            raise  # it names its own file (one being read, a folder that does not exist)
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise OSError(error.errno, f"cannot write it: {reason}", str(path)) from error


def user_message(error: BaseException) -> str:
    """The ``<where>: <what>`` of a user error, on one line."""
    if isinstance(error, OSError) and error.filename is not None:
        message = f"{error.filename}: {error.strerror or type(error).__name__}"
    else:
        message = str(error)
    return one_line(message + _notes(error))


def _notes(error: BaseException) -> str:
    """Notes added on the way up (``error.add_note``), each in brackets."""
    return "".join(f" ({note})" for note in getattr(error, "__notes__", ()))


def one_line(text: str) -> str:
    """``text`` with its lines joined (a message is printed on exactly one line)."""
    return "; ".join(line.strip() for line in text.strip().splitlines() if line.strip())


def write_traceback(error: BaseException, folder: Path | None = None) -> Path:
    """Write the full traceback of ``error`` (with the exceptions chained to it, a worker's
    included) to a new file in ``folder`` (default: the temporary folder); return its path."""
    folder = Path(folder or tempfile.gettempdir())
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    handle, name = tempfile.mkstemp(prefix=f"gridsim-{stamp}-", suffix=".traceback.txt",
                                    dir=folder)  # fmt: skip
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write("".join(traceback.format_exception(error)))
    return Path(name)


def internal_message(error: BaseException, written: Path | None) -> str:
    """The one line of a bug: what was raised and where its traceback is."""
    what = one_line(f"{type(error).__name__}: {error}{_notes(error)}")
    where = f"; traceback in {written}" if written else ""
    return f"gridsim: internal error (a bug, please report it): {what}{where}"


def end_with(error: BaseException, debug: bool = False) -> int:
    """Print the one line that ends a command stopped by ``error`` (the traceback first, with
    ``debug``) and return the exit code: 2 for the user's errors, 1 for bugs, 130 for Ctrl-C."""
    import click

    def say(line: str) -> None:
        click.echo(line, err=True)

    if isinstance(error, click.exceptions.Abort | KeyboardInterrupt):
        say("gridsim: interrupted")
        return INTERRUPTED
    if isinstance(error, click.exceptions.NoArgsIsHelpError):
        error.show()  # the command's help, as for --help
        return error.exit_code
    if isinstance(error, click.UsageError):  # an option or argument click refused
        command = error.ctx.command_path if error.ctx else "gridsim"
        say(f"gridsim: error: {command}: {one_line(error.format_message())} "
            f"(see {command} --help)")  # fmt: skip
        return USER_ERROR
    if isinstance(error, click.ClickException):
        say(f"gridsim: error: {one_line(error.format_message())}")
        return error.exit_code
    if debug:
        say("".join(traceback.format_exception(error)).rstrip())
    if is_user_error(error):
        say(f"gridsim: error: {user_message(error)}")
        return USER_ERROR
    try:
        written: Path | None = write_traceback(error)
    except OSError:
        written = None
    say(internal_message(error, written))
    return INTERNAL_ERROR

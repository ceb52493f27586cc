"""Where chunks run: in this process, in local worker processes, or on a Dask cluster.

Consumes a name from the command line (``-j N`` for local processes, ``--cluster local:N`` or
``--cluster tcp://HOST:PORT`` for Dask); produces a :class:`ChunkExecutor`: ``submit``
returns a ``concurrent.futures.Future`` whose result (the chunk's tables) comes back to this
process, which alone writes the result store -- workers need no shared disk.

Every executor can be stopped at once (:meth:`ChunkExecutor.stop`: pending chunks cancelled,
workers terminated) so that Ctrl-C returns within a couple of seconds. Local worker processes,
Dask's of ``local:N`` too, ignore Ctrl-C (the parent handles it) and die with their parent
even when it is killed (``PR_SET_PDEATHSIG`` on Linux, and a watchdog thread that notices the
parent is gone; Dask's own worker processes exit when their parent's pipe closes).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol


class ExecutorError(ValueError):
    """An executor cannot be set up as asked (bad address, Dask missing); one line."""


class ChunkExecutor(Protocol):
    """What the runner needs from an executor."""

    #: Chunks that run at once (sizes chunks and how many are kept in flight).
    workers: int
    #: Shown beside the progress bar and in the run's history.
    description: str

    def submit(self, function: Callable[..., Any], *args: Any) -> Future: ...

    def stop(self) -> None:
        """Cancel pending work and stop the workers now (Ctrl-C)."""

    def close(self) -> None:
        """Release the workers after the last chunk."""


class SerialExecutor:
    """Chunks run in this process, one at a time, when submitted."""

    workers = 1
    description = "this process"

    def submit(self, function: Callable[..., Any], *args: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(function(*args))
        except Exception as error:  # the runner reads it from the future
            future.set_exception(error)
        return future

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


class ProcessExecutor:
    """Chunks in ``workers`` local processes (a ``ProcessPoolExecutor``)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"{workers} local processes"
        # Imported here: a run in this process needs no multiprocessing (start-up).
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(
            max_workers=workers, initializer=_worker_setup, initargs=(os.getpid(),)
        )
        self._stopped = False

    def submit(self, function: Callable[..., Any], *args: Any) -> Future:
        return self._pool.submit(function, *args)

    def stop(self) -> None:
        # The pool's own shutdown waits for running chunks; terminate its processes instead.
        self._stopped = True
        processes = list(getattr(self._pool, "_processes", {}).values())
        results = getattr(self._pool, "_result_queue", None)
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        deadline = time.monotonic() + 1.0
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
        # A worker terminated while sending a chunk's tables leaves the pool's manager thread
        # waiting for the rest of that message, and the interpreter's exit waits for that
        # thread. This process holds the last open end the rest could come from: closing it
        # ends the wait (end of file) once the workers are gone.
        if results is not None:
            with contextlib.suppress(Exception):
                results._writer.close()

    def close(self) -> None:
        if not self._stopped:
            self._pool.shutdown(wait=True)


#: Dask settings of the local clusters gridsim starts. A chunk is seconds of pure Python, so
#: Dask's defaults for interactive work (a stack sample every 10 ms, event-loop and system
#: checks every 20 to 500 ms, each taking the worker's GIL from the chunk) cost about 15% of
#: the processor time (docs/sweeps.md); these keep the checks, less often.
QUIET_LOCAL_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "5s",
}


class DaskExecutor:
    """Chunks on a Dask distributed cluster: an existing scheduler (``tcp://HOST:PORT``) or a
    ``LocalCluster`` of ``N`` single-threaded worker processes started here (``local:N``)."""

    def __init__(self, address: str, processes: bool = True, timeout_s: float = 10) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError(
                "--cluster needs Dask: pip install 'gridsim-sched[cluster]'"
            ) from None
        self._cluster = None
        if address.startswith("local:"):
            import dask

            workers = _count(address.removeprefix("local:"), address)
            with dask.config.set(QUIET_LOCAL_CLUSTER):
                self._cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=processes,
                    dashboard_address=None, death_timeout=60, silence_logs=50,
                    preload=[__name__] if processes else None,
                )  # fmt: skip
                self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(address, timeout=timeout_s)
            except (OSError, TimeoutError, ValueError) as error:
                raise ExecutorError(f"--cluster {address}: cannot reach a Dask scheduler "
                                    f"({error})") from None  # fmt: skip
        threads = sum(self._client.nthreads().values())
        self.workers = max(1, threads)
        self.description = f"Dask at {self._client.scheduler.address} ({threads} threads)"
        self._executor = self._client.get_executor(pure=False)

    def submit(self, function: Callable[..., Any], *args: Any) -> Future:
        return self._executor.submit(function, *args)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._executor.shutdown(wait=False)
        if self._cluster is not None:
            # Closing waits for running chunks; kill a local cluster's worker processes first,
            # telling their nannies not to restart them.
            with contextlib.suppress(Exception):
                nannies = list(self._cluster.workers.values())
                for nanny in nannies:
                    nanny.close_gracefully()
                for nanny in nannies:
                    if getattr(nanny, "pid", None):
                        os.kill(nanny.pid, signal.SIGKILL)
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.close(timeout=2)
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close(timeout=2)


def open_executor(jobs: int | None, cluster: str | None, tasks: int) -> ChunkExecutor:
    """The executor for ``--jobs`` / ``--cluster`` (default: one process per core, or this
    process alone for one worker or one chunk)."""
    if cluster:
        check_cluster(cluster)
        return DaskExecutor(cluster)
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or tasks <= 1:
        return SerialExecutor()
    return ProcessExecutor(min(workers, tasks))


#: Most worker processes per core that ``--jobs`` and ``--cluster local:N`` start: each is a
#: Python process holding its own copy of gridsim and its libraries (130 MB measured after
#: importing them), and beyond a few per core they only wait for a core.
MAX_WORKERS_PER_CORE = 4


def check_workers(count: int, option: str) -> None:
    """ExecutorError if ``count`` worker processes are more than this computer runs well
    (``option`` names what asked for them)."""
    cores = os.cpu_count() or 1
    if count > MAX_WORKERS_PER_CORE * cores:
        raise ExecutorError(f"{option}: {count} worker processes on {cores} cores; at most "
                            f"{MAX_WORKERS_PER_CORE * cores} ({MAX_WORKERS_PER_CORE} per core) "
                            "run here")  # fmt: skip


def check_cluster(address: str) -> None:
    """ExecutorError unless ``address`` is ``local:N`` (N >= 1) or a scheduler address and
    Dask is installed (checked before anything is started or written)."""
    import importlib.util

    if address.startswith("local:"):
        check_workers(_count(address.removeprefix("local:"), address), f"--cluster {address}")
    elif "://" not in address:
        raise ExecutorError(f"--cluster {address!r}: expected local:N or a scheduler address "
                            "such as tcp://host:8786")  # fmt: skip
    if importlib.util.find_spec("distributed") is None:
        raise ExecutorError("--cluster needs Dask: pip install 'gridsim-sched[cluster]'")


def _count(text: str, address: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ExecutorError(f"--cluster {address!r}: expected local:N with N >= 1 workers")
    return count


def dask_setup(worker: Any) -> None:
    """Dask preload of ``local:N`` workers: leave Ctrl-C to the parent, as local workers do."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_setup(parent: int) -> None:
    """In each worker process: leave Ctrl-C to the parent; die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)

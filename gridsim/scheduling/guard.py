"""Guard rails around a plugin job-flow scheduler: every window it announces is checked.

Consumes a planner (the engine's :class:`~gridsim.sim.engine.Scheduler` protocol) and the
engine's calls to it; produces the planner's answers unchanged, or stops the run with a
:class:`~gridsim.plugins.PluginError` naming the plugin, the job, the time and what is wrong.
The guard keeps its own copy of the nodes' occupation (local load, every window announced and
not yet over) and checks each new or moved window against it and against the job: the right
number of distinct, fast enough nodes; free (no overlap with another window or local load);
not before the job's arrival or the current time; long enough for the job's volume; within
its budget; a job moved only while queued. A planner that declares ``never_delays = True``
(conservative backfilling does) must also never move a queued job's window later, except to
make room for an overrun, so no job starts later than first promised but for overruns. An
exception raised inside the planner (or inside a plugin criterion it calls) is reported the
same way, the original traceback chained for ``--debug``.

Wrapped around a built-in planner whose criterion is a plugin, the guard only adds the job
and time to the criterion guard's messages (``checked=False``): the criterion's windows are
already checked against the planner's own profile.

Cost per announced window: O(n x k) for ``n`` nodes holding ``k`` free intervals each
(benchmarks/bench_plugins.py measures it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from gridsim.model import TIME_TOLERANCE, Job, Window
from gridsim.plugins import PluginError, one_line
from gridsim.profile import Profile
from gridsim.selection.guard import RELATIVE_TOLERANCE, window_problem

Result = TypeVar("Result")


class GuardedScheduler:
    """A planner whose answers are checked (see the module docstring).

    Args:
        planner: the plugin's planner (or a built-in one driving a plugin criterion).
        origin: what the scenario wrote to name the plugin.
        checked: check the planner's windows (False: only add context to errors).
    """

    def __init__(self, planner: Any, origin: str, checked: bool = True) -> None:
        self.planner = planner
        self.origin = origin
        self.checked = checked
        self.never_delays = bool(getattr(planner, "never_delays", False))
        self.occupied = Profile(planner.nodes, planner.busy, planner.profile.horizon_start)
        self.submitted: dict[int, Job] = {}
        self.announced: dict[int, Window] = {}  # queued jobs' windows
        self.held_until: dict[int, tuple[Window, float]] = {}  # running jobs: window, end
        self.started: set[int] = set()

    # -- what the engine reads -------------------------------------------------------------

    @property
    def jobs(self) -> dict[int, Job]:
        return self.planner.jobs

    @property
    def running(self) -> dict[int, Window]:
        return self.planner.running

    @property
    def first_promised(self) -> dict[int, float]:
        return self.planner.first_promised

    @property
    def delays(self) -> dict[int, float]:
        return self.planner.delays

    # -- the engine's calls ----------------------------------------------------------------

    def submit(
        self, jobs: Iterable[Job], now: float
    ) -> tuple[Mapping[int, Window | None], list[Job]]:
        jobs = tuple(jobs)
        if len(jobs) == 1:
            event = f"at time {now:.9g} (job {jobs[0].id} submitted)"
        else:
            event = f"at time {now:.9g} ({len(jobs)} jobs submitted together)"
        self.submitted.update((job.id, job) for job in jobs)
        planned, rejected = self._call(event, self.planner.submit, jobs, now)
        if self.checked:
            for job in rejected:
                if job not in jobs or planned.get(job.id) is not None:
                    self._fail(event, f"rejected job {job.id}, which it also planned or never got")
            self._apply(planned, now, event, overrun=False)
        return planned, rejected

    def start(self, job_id: int) -> Window:
        event = f"(job {job_id} starting)"
        window = self._call(event, self.planner.start, job_id)
        if self.checked:
            if window != self.announced.get(job_id):
                self._fail(event, f"started job {job_id} on a window it never announced")
            if job_id not in self.planner.jobs or job_id not in self.planner.first_promised:
                self._fail(event, f"started job {job_id} without recording it in jobs and "
                                  "first_promised")  # fmt: skip
            del self.announced[job_id]
            self.held_until[job_id] = (window, window.finish)
            self.started.add(job_id)
        return window

    def finish(self, job_id: int, now: float) -> Mapping[int, Window | None]:
        event = f"at time {now:.9g} (job {job_id} finished)"
        if self.checked and job_id in self.held_until:
            window, end = self.held_until.pop(job_id)
            for node in window.nodes:
                self.occupied.release(node, now, end)
        changes = self._call(event, self.planner.finish, job_id, now)
        if self.checked:
            self._apply(changes, now, event, overrun=False)
        return changes

    def overrun(
        self, job_id: int, now: float, end: float
    ) -> tuple[float, Mapping[int, Window | None]]:
        event = f"at time {now:.9g} (job {job_id} overran to {end:.9g})"
        allowed_end, moved = self._call(event, self.planner.overrun, job_id, now, end)
        if self.checked:
            if not now - TIME_TOLERANCE <= allowed_end <= end + TIME_TOLERANCE:
                self._fail(event, f"let job {job_id} run to {allowed_end:.9g}, outside "
                                  f"[{now:.9g}, {end:.9g}]")  # fmt: skip
            window, _ = self.held_until[job_id]
            self.held_until[job_id] = (window, allowed_end)
            self._apply(moved, now, event, overrun=True, extension=(job_id, now, allowed_end))
        return allowed_end, moved

    # -- checks ----------------------------------------------------------------------------

    def _apply(
        self,
        changes: Mapping[int, Window | None],
        now: float,
        event: str,
        overrun: bool,
        extension: tuple[int, float, float] | None = None,
    ) -> None:
        """Check the new and moved windows against the occupation, then record them."""
        before: dict[int, Window] = {}
        for job_id in changes:
            if job_id not in self.submitted:
                self._fail(event, f"announced a window for job {job_id}, never submitted")
            if job_id in self.started:
                self._fail(event, f"moved job {job_id}, which has already started")
            old = self.announced.pop(job_id, None)
            if old is not None:
                self.occupied.release_window(old)
                before[job_id] = old
        if extension is not None:  # the overrunning job keeps its nodes to its new end
            job_id, start, end = extension
            slack = _slack(end)
            for node in self.held_until[job_id][0].nodes:
                if not self.occupied.is_free(node, start + slack, end - slack):
                    self._fail(event, f"let job {job_id} overrun into another window on node "
                                      f"{node} within [{start:.9g}, {end:.9g})")  # fmt: skip
                self.occupied.occupy(node, start, end)
        for job_id, window in changes.items():
            if window is None:
                continue
            job = self.submitted[job_id]
            request = job.request(now)
            problem = window_problem(window, self.occupied, request, check_slots=False)
            if problem is not None:
                self._fail(event, f"gave job {job_id} an infeasible window: {problem}")
            old = before.get(job_id)
            if (
                self.never_delays
                and not overrun
                and old is not None
                and (window.start > old.start + _slack(old.start))
            ):
                self._fail(event, f"moved job {job_id} to start at {window.start:.9g}, later "
                                  f"than the window it held (from {old.start:.9g})")  # fmt: skip
            for node in window.nodes:  # free: window_problem checked it
                self.occupied.occupy(node, window.start, window.finish)
            self.announced[job_id] = window

    def _call(self, event: str, method: Callable[..., Result], *args) -> Result:
        try:
            return method(*args)
        except PluginError as error:  # a plugin criterion's guard: add the job and time
            raise PluginError(f"{error}; {self._job_of(error)}{event}") from error
        except Exception as error:
            raise PluginError(
                f"scheduler {self.origin} raised {one_line(error)} {event}"
            ) from error

    def _job_of(self, error: PluginError) -> str:
        """``"job <id>, "`` if one submitted job matches the request in ``error``."""
        request = getattr(error, "request", None)
        if request is None:
            return ""
        asked = (request.n, request.volume, request.budget, request.min_performance)
        matching = [
            job.id
            for job in self.submitted.values()
            if job.id not in self.started
            and (job.n, job.volume, job.budget, job.min_performance) == asked
        ]
        return f"job {matching[0]}, " if len(matching) == 1 else ""

    def _fail(self, event: str, problem: str) -> None:
        raise PluginError(f"scheduler {self.origin} {problem} {event}")


def _slack(time: float) -> float:
    return RELATIVE_TOLERANCE * max(1.0, abs(time))

"""gridsim from Python: load, check and run a scenario as the ``gridsim`` command does.

Consumes a scenario as a file path, YAML text, a mapping (the YAML document as Python data), a
scenario object or an :class:`~gridsim.experiments.grid.Experiment`, and overrides
``{dotted.path: value}`` (the paths of ``sweep:``; ``gridsim run --set``); produces validated
scenario objects (:func:`load_scenario`), the experiment a scenario file runs, every point of
its grid (:func:`validate`), and a run's tables as :class:`~gridsim.analysis.results.Results`
(:func:`run`). ``gridsim run`` and ``gridsim validate`` call the same functions, so a scenario
gives the same errors and, for the same seed, the same numbers bit for bit from both.

A scenario gridsim cannot use raises :class:`~gridsim.errors.UserError`, whose message is the
line the command prints after ``gridsim: error:`` (``s.yaml: request.n: Input should be
greater than 0 (got -3)``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel

from gridsim.config import ScenarioError
from gridsim.errors import UserError
from gridsim.experiments.grid import Experiment, load_experiment
from gridsim.experiments.overrides import overrides_of, plain

if TYPE_CHECKING:
    from gridsim.analysis.results import Results
    from gridsim.experiments.batch import BatchScenario
    from gridsim.experiments.cloud import CloudScenario
    from gridsim.experiments.jobflow import JobFlowScenario
    from gridsim.experiments.runner import ExperimentResult
    from gridsim.experiments.swf_replay import SwfReplayScenario
    from gridsim.experiments.window_search import WindowSearchScenario

    #: A scenario object of any kind (the ``kind:`` of its YAML picks the class).
    Scenario: TypeAlias = (
        WindowSearchScenario | JobFlowScenario | BatchScenario | CloudScenario | SwfReplayScenario
    )

__all__ = ["Scenario", "ScenarioSource", "load_scenario", "run", "validate"]
#: Where a scenario comes from: a file path, YAML text (a string of several lines), or the
#: YAML document as a mapping.
ScenarioSource: TypeAlias = str | os.PathLike[str] | Mapping[str, Any]
#: Overrides: dotted field path -> value (``{"seed": 3, "environment.nodes": 20}``).
Overrides: TypeAlias = Mapping[str, Any]

#: Notes of a run (cells found done, damaged chunks run again), logged at INFO level.
log = logging.getLogger("gridsim")


def __getattr__(name: str) -> Any:
    """``Scenario``, the union of the kinds' scenario classes, built on first use: a command
    imports only the kind it runs."""
    if name != "Scenario":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from gridsim.experiments.batch import BatchScenario
    from gridsim.experiments.cloud import CloudScenario
    from gridsim.experiments.jobflow import JobFlowScenario
    from gridsim.experiments.swf_replay import SwfReplayScenario
    from gridsim.experiments.window_search import WindowSearchScenario

    return (
        WindowSearchScenario | JobFlowScenario | BatchScenario | CloudScenario | SwfReplayScenario
    )


def load_scenario(source: ScenarioSource, *, overrides: Overrides | None = None) -> Scenario:
    """The validated scenario object of ``source`` with ``overrides`` set.

    Args:
        source: a path, YAML text or a mapping of the YAML document.
        overrides: dotted field path -> value, set before validating (``--set``).

    Raises:
        UserError: the scenario is invalid, or is a grid (``sweep:``, ``zip:``): several
            scenarios, which :func:`validate` lists and :func:`run` runs.
    """
    from gridsim.experiments.feasibility import check_feasible
    from gridsim.experiments.kinds import load_scenario as load_one

    with user_errors(_where(source)):
        scenario, _ = load_one(_yaml_source(source), overrides_of(overrides))
        check_feasible(scenario)
    return scenario


def validate(source: ScenarioSource | Scenario, *, overrides: Overrides | None = None,
             ) -> Experiment:  # fmt: skip
    """The experiment ``source`` runs: its points (one, or every point of a grid), each a
    validated scenario, its seed and replication count. ``gridsim validate`` prints it.

    Raises:
        UserError: a point of the scenario is invalid (named by its path and value).
    """
    return experiment_of_source(source, overrides, _where(source))


def run(
    scenario: ScenarioSource | Scenario | Experiment,
    *,
    overrides: Overrides | None = None,
    replications: int | range | None = None,
    jobs: int | None = None,
    cluster: str | None = None,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    progress: bool | None = None,
) -> Results:
    """Run a scenario's replications under every policy and return its tables.

    Args:
        scenario: a path, YAML text, a mapping, a scenario object or an :class:`Experiment`.
        overrides: dotted field path -> value (``gridsim run --set``), e.g. ``{"seed": 3}``.
        replications: a count (replications ``0..N-1``) or a ``range``; default the
            scenario's ``replications``.
        jobs: worker processes (default: all cores; 1 runs in this process).
        cluster: a Dask cluster instead: ``local:N`` or a scheduler's ``tcp://HOST:PORT``.
        out: a results folder, written as ``gridsim run -o`` writes it (resumed when it holds
            this experiment); None keeps the tables in memory.
        overwrite: replace a folder of another experiment.
        progress: a progress bar on stderr; None: only when stderr is a terminal.

    Returns:
        The run's tables; with ``out``, what ``gridsim.load_results(out)`` reads.

    Raises:
        UserError: the scenario is invalid.
        KeyboardInterrupt: Ctrl-C; the finished chunks are kept in ``out``.
        StoreError, ExecutorError, CellsError: ``out``, ``cluster``, ``jobs`` or
            ``replications`` cannot be used (one-line messages, as the command prints).
    """
    from gridsim.analysis.results import load_results, results_in_memory
    from gridsim.experiments.cells import parse_replications
    from gridsim.experiments.executors import ExecutorError, check_cluster, check_workers
    from gridsim.experiments.runner import run_experiment

    experiment = experiment_of_source(scenario, overrides, _where(scenario))
    if isinstance(replications, range) and replications.step == 1:
        replications = parse_replications(f"{replications.start}:{replications.stop}")
    elif replications is not None:
        replications = parse_replications(str(replications))
    if jobs is not None and jobs < 1:
        raise ExecutorError(f"jobs={jobs}: expected at least 1 worker process")
    if jobs is not None:
        check_workers(jobs, f"jobs={jobs}")
    if cluster is not None:
        check_cluster(cluster)
    result = run_experiment(
        experiment,
        replications=replications,
        jobs=jobs,
        cluster=cluster,
        out_dir=None if out is None else Path(out),
        overwrite=overwrite,
        command=f"gridsim.run() from {Path(sys.argv[0]).name or 'python'}",
        progress=progress,
        say=log.info,
    )
    raise_if_stopped(result)
    if result.out_dir is not None:
        return load_results(result.out_dir)
    return results_in_memory(result.tables, result.metadata)


def experiment_of_source(source: Any, overrides: Overrides | Iterable[str] | None,
                         where: str) -> Experiment:  # fmt: skip
    """The experiment of any scenario source with overrides (a mapping, or the command
    line's ``PATH=VALUE``); a ScenarioError becomes a UserError naming ``where`` (the file,
    as the command prints it). A scenario object is validated again
    (``model_copy(update=...)`` does not validate)."""
    if isinstance(source, Experiment):
        if overrides:
            raise TypeError("overrides apply to a scenario, not to a loaded Experiment")
        return source
    if isinstance(source, BaseModel):  # a scenario object of any kind
        source = source.model_dump()
    with user_errors(where):
        return load_experiment(_yaml_source(source), overrides_of(overrides))


@contextlib.contextmanager
def user_errors(where: str) -> Iterator[None]:
    """Turn a ScenarioError raised inside into a UserError naming ``where``."""
    try:
        yield
    except ScenarioError as error:
        raise UserError(where, str(error)) from None


def raise_if_stopped(result: ExperimentResult) -> None:
    """Raise what stopped a run (KeyboardInterrupt after Ctrl-C, else the first failure),
    noting where the finished replications are."""
    if result.status == "complete":
        return
    if result.status == "interrupted":
        failure: BaseException = KeyboardInterrupt()
    else:
        failure = result.exception or RuntimeError(f"run {result.status}: {result.error}")
    done = result.metadata.get("replications_completed", 0)
    kept = f"kept in {result.out_dir}" if result.out_dir else "lost with the run (no folder)"
    failure.add_note(f"the run stopped; {done} replication{'s' * (done != 1)} finished, {kept}")
    raise failure


def _where(source: Any) -> str:
    """How an error names the scenario: its file, or its name."""
    if isinstance(source, Experiment | BaseModel):
        return f"scenario {source.name!r}"
    if isinstance(source, Mapping):
        return f"scenario {source['name']!r}" if "name" in source else "scenario"
    if isinstance(source, str) and "\n" in source:
        return "scenario text"
    return str(source)


def _yaml_source(source: Any) -> str | Path:
    """A path or YAML text for the scenario reader (a mapping is written as YAML)."""
    if isinstance(source, Mapping):
        return _yaml_text(source)
    return Path(source) if isinstance(source, os.PathLike) else source


def _yaml_text(document: Mapping[str, Any]) -> str:
    """YAML of a scenario document (tuples, as a scenario object dumps them, as lists)."""
    import yaml

    return yaml.safe_dump(plain(document), sort_keys=False)

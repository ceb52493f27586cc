"""The ``gridsim`` command: run, validate, list policies, draw, report and export.

Every command ends on an error through one path (:meth:`_Gridsim.main`, then
:func:`gridsim.errors.end_with`): a user error (bad YAML, unknown criterion, a value out of
range, an unusable log, option or output path) is one line naming the file and the field or
line, with exit code 2 and no traceback; a bug is exit code 1 and one line saying where its
traceback was written.
"""

from __future__ import annotations

import shlex
import sys
from importlib import resources
from pathlib import Path
from typing import ClassVar

import click

from gridsim.bundled_scenarios import QUICKSTART, scenario_file
from gridsim.cli_options import (
    examples,
    json_option,
    progress_option,
    quiet_option,
    set_option,
)
from gridsim.config import MAX_REPLICATIONS, ScenarioError
from gridsim.errors import UserError, end_with, writing
from gridsim.experiments.kinds import kind_module


def _scenario_source(scenario: str | None) -> str | Path:
    """The quick-start's text, a scenario file, or the bundled scenario of that name."""
    if scenario in (None, QUICKSTART):
        return resources.files("gridsim").joinpath("data/quickstart.yaml").read_text()
    return scenario_file(scenario)


def _load(scenario: str | None, log: Path | None = None, overrides: tuple[str, ...] = ()):
    """The experiment of a scenario file (every point of its grid validated), with
    ``--set`` overrides: what :func:`gridsim.validate` gives."""
    from gridsim.api import experiment_of_source, user_errors

    where = scenario or QUICKSTART
    with user_errors(where):
        source = _scenario_source(scenario)
        if log is not None:
            source = _with_log(source, log)
    return experiment_of_source(source, overrides, where)


def _with_log(source: str | Path, log: Path) -> str:
    """The scenario's YAML text with its kind's log field (``workload.path``) set to ``log``
    (``--log``)."""
    import yaml

    from gridsim.config import read_yaml
    from gridsim.experiments.kinds import KINDS, declaration

    document, _ = read_yaml(source)
    kind = document.get("kind")
    if kind not in KINDS or not declaration(kind).log_field:  # only then every kind is asked
        takes = [name for name in KINDS if declaration(name).log_field]
        raise ScenarioError(f"--log applies to {' and '.join(takes)} scenarios, not {kind!r}")
    section, name = declaration(kind).log_field.rsplit(".", 1)  # type: ignore[union-attr]
    values = document.get(section) or {}
    if not isinstance(values, dict):
        raise ScenarioError(f"{section}: expected a mapping")
    document[section] = {**values, name: str(log.expanduser().resolve())}
    text = yaml.safe_dump(document, sort_keys=False)
    return f"# {section}.{name} set by --log {log}\n{text}"


def _default_out(experiment, seed: int | None) -> Path:
    """``results/<name>``: the first of it, ``-2``, ``-3``, ... that is empty or holds this
    experiment (so rerunning an interrupted command resumes it)."""
    from gridsim.experiments.runner import new_manifest
    from gridsim.experiments.store import StoreError, experiment_difference, read_manifest

    wanted = new_manifest(experiment, experiment.seed if seed is None else seed)
    base = Path("results") / experiment.name
    candidate, number = base, 1
    while candidate.exists() and any(candidate.iterdir()):
        try:
            stored = read_manifest(candidate)
        except StoreError:
            stored = None
        if stored is not None and experiment_difference(stored, wanted) is None:
            break
        number += 1
        candidate = base.with_name(f"{base.name}-{number}")
    return candidate


class _PathNamed(click.Path):
    """A path option that must not be empty (``-o ""`` from an unset shell variable would
    otherwise be the current folder)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("an empty path; name a file or folder", param, ctx)
        return super().convert(value, param, ctx)


class _FiniteFloat(click.types.FloatParamType):
    """A number that is neither infinite nor NaN (``--from nan`` is not a time); with
    ``positive``, above 0 as well."""

    def __init__(self, positive: bool = False) -> None:
        self.positive = positive

    def convert(self, value, param, ctx):
        import math

        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.positive and number <= 0:
            self.fail(f"{value!r} is not above 0", param, ctx)
        return number


class _Replications(click.ParamType):
    """``N`` (replications 0..N-1) or ``A:B`` (A..B-1)."""

    name = "N|A:B"

    def convert(self, value, param, ctx):
        from gridsim.experiments.cells import CellsError, parse_replications

        if isinstance(value, range):
            return value
        try:
            return parse_replications(str(value))
        except CellsError as error:
            self.fail(str(error).removeprefix(f"--replications {str(value)!r}: "), param, ctx)


class _Shard(click.ParamType):
    name = "I/K"

    def convert(self, value, param, ctx):
        from gridsim.experiments.cells import CellsError, parse_shard

        if isinstance(value, tuple):
            return value
        try:
            return parse_shard(str(value))
        except CellsError as error:
            self.fail(str(error).removeprefix(f"--shard {str(value)!r}: "), param, ctx)


class _Command(click.Command):
    """A gridsim command: notes whether it was given ``--debug`` (the error path prints the
    traceback then)."""

    def invoke(self, ctx: click.Context):
        _Gridsim.debug = _Gridsim.debug or bool(ctx.params.get("debug"))
        return super().invoke(ctx)


def _checked_jobs(jobs: int | None) -> int | None:
    """``--jobs`` checked against the cores before anything starts."""
    from gridsim.experiments.executors import check_workers

    if jobs is not None:
        check_workers(jobs, f"--jobs {jobs}")
    return jobs


#: ``--jobs/-j`` of every command that runs replications.
_jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Worker processes [all cores].",
    callback=lambda ctx, param, value: _checked_jobs(value),
)


def _checked_cluster(address: str | None) -> str | None:
    """``--cluster`` checked before the results folder is opened."""
    from gridsim.experiments.executors import check_cluster

    if address is not None:
        check_cluster(address)
    return address


class _Gridsim(click.Group):
    """The command group: remembers its arguments for the run history, and is the one place
    where a command stopped by an error ends (:func:`gridsim.errors.end_with`)."""

    arguments: ClassVar[list[str]] = []
    debug: ClassVar[bool] = False
    command_class = _Command
    #: Commands defined in another module, imported when named (``gridsim run`` does not
    #: load the workload converters): name -> module.
    elsewhere: ClassVar[dict[str, str]] = {"convert": "gridsim.cli_workload",
                                           "workload": "gridsim.cli_workload"}  # fmt: skip

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.elsewhere})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.elsewhere and name not in self.commands:
            from importlib import import_module

            self.add_command(getattr(import_module(self.elsewhere[name]), name))
        return super().get_command(ctx, name)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):  # type: ignore[override]  # fmt: skip
        _Gridsim.arguments = [str(a) for a in (sys.argv[1:] if args is None else args)]
        _Gridsim.debug = False
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except Exception as error:  # the one place every command ends
            sys.exit(end_with(error, debug=_Gridsim.debug))
        except KeyboardInterrupt as error:
            sys.exit(end_with(error))
        sys.exit(code if isinstance(code, int) else 0)


def _command_line() -> str:
    """The invocation as typed (recorded in a results folder's history)."""
    return shlex.join(["gridsim", *_Gridsim.arguments])


@click.group(cls=_Gridsim, name="gridsim", epilog=examples("gridsim"))
@click.version_option(package_name="gridsim-sched")
@click.option("--debug", is_flag=True,
              help="Print the traceback of a failure, in any command.")  # fmt: skip
def main(debug: bool) -> None:
    """gridsim: simulate grid and cloud job scheduling policies.

    Each command's --help has examples; docs/scripting.md covers --set, --json and shell
    completion.
    """
    _Gridsim.debug = debug


@main.command(epilog=examples("run"))
@click.argument("scenario", required=False)
@click.option("--replications", "-r", type=_Replications(),
              help="How many (N: replications 0..N-1) or which (A:B: A..B-1) "
                   "[the scenario's count].")  # fmt: skip
@click.option(
    "--shard",
    type=_Shard(),
    help="Run only slice I of K of the replications (split over machines).",
)
@click.option("--seed", "-s", type=click.IntRange(min=0), help="Override the scenario seed.")
@_jobs_option
@click.option(
    "--cluster",
    metavar="local:N|tcp://HOST:PORT",
    callback=lambda ctx, param, value: _checked_cluster(value),
    help="Run on Dask: a local cluster of N workers, or a scheduler's address.",
)
@click.option("--out", "-o", type=_PathNamed(path_type=Path),
              help="Results folder (resumed if it holds this experiment).")  # fmt: skip
@click.option("--overwrite", is_flag=True,
              help="Replace a results folder that holds another experiment.")  # fmt: skip
@set_option
@click.option("--log", type=_PathNamed(path_type=Path),
              help="Workload log replacing workload.path (swf_replay scenarios).")  # fmt: skip
@json_option
@progress_option
@quiet_option("progress bar")
@click.option("--debug", is_flag=True, help="Print the traceback of a failure.")
def run(scenario, replications, shard, seed, jobs, cluster, out, overwrite, overrides, log,
        as_json, progress, quiet, debug) -> None:  # fmt: skip
    """Run SCENARIO (a YAML file or a bundled scenario's name; default: the quick-start).

    A results folder of the same scenario and seed is resumed: only its missing cells run.
    """
    from gridsim.api import raise_if_stopped
    from gridsim.experiments.runner import run_experiment

    experiment = _load(scenario, log, overrides)
    out = out or _default_out(experiment, seed)
    result = run_experiment(
        experiment,
        replications=replications,
        shard=shard,
        seed=seed,
        jobs=jobs,
        cluster=cluster,
        out_dir=out,
        overwrite=overwrite,
        command=_command_line(),
        progress=False if quiet else progress,
        say=lambda line: click.echo(line, err=True),
    )
    if as_json:
        from gridsim.json_output import dumps, run_record

        click.echo(dumps(run_record(experiment, result)))
    else:
        _print_summary(experiment, result)
    if result.status == "interrupted":
        click.echo(f"gridsim: interrupted; finished chunks are kept in {out}: run the same "
                   "command to resume", err=True)  # fmt: skip
        sys.exit(130)
    raise_if_stopped(result)


def _print_summary(experiment, result) -> None:
    """The summary table of a run, its paired comparison and what it could not do."""
    from gridsim.analysis.stats import format_summary
    from gridsim.analysis.tables import column_names, row_count, rows

    module = kind_module(experiment.scenario)
    present = column_names(result.summary)
    keys = [c for c in dict.fromkeys((*experiment.axes, "policy", "goal")) if c in present]
    keys += [c for c in ("queue_size",) if c in present and c not in keys]
    metrics = getattr(module, "DISPLAY_METRICS", None) or [
        c.removesuffix("_mean") for c in present if c.endswith("_mean")
    ]
    if row_count(result.summary):
        click.echo(format_summary(result.summary, keys, metrics))
    elif result.metadata.get("replications_completed"):
        click.echo("no summary: no run gave a result to average (see what was not done)")
    paired = result.tables.frames.get("paired")  # as built: no pandas for a log replay
    if paired is not None:
        paired = list(rows(paired))
        click.echo(f"\npaired against {paired[0]['baseline']}, same replications "
                   "(policy - baseline):")  # fmt: skip
        points = [a for a in experiment.axes if a in paired[0] and a != "policy"]
        shown = ""
        for row in paired:
            point = tuple(row[axis] for axis in points)
            if points and str(point) != shown:  # as text: a missing value has no truth value
                click.echo("  " + ", ".join(f"{a}={v}" for a, v in zip(points, point, strict=True)))
                shown = str(point)
            click.echo(
                f"  {row['policy']} vs {row['baseline']}: {row['metric']} "
                f"{row['difference_mean']:+.4g} ± {row['difference_ci95']:.2g} "
                f"({row['relative_mean']:+.2%} ± {row['relative_ci95']:.2%}), "
                f"{int(row['pairs'])} pairs"
            )
    _print_rejections(result.metadata.get("rejections") or [])
    done = result.metadata["replications_completed"]
    points = f", {len(experiment.points)} points" if len(experiment.points) > 1 else ""
    click.echo(f"\nresults: {result.out_dir}  ({_count(done, 'replication')}{points})")


def _count(number: int, stem: str, one: str = "", many: str = "s") -> str:
    """``1 replication``, ``2 replications``: a count with its noun in the right number."""
    return f"{number} {stem}{one if number == 1 else many}"


def _print_rejections(rows: list[dict]) -> None:
    """What the runs could not do, per policy (also in metadata.json)."""
    from gridsim.experiments.rejections import describe

    if rows:
        click.echo('\nnot done (also in metadata.json, "rejections"):')
    for row in rows:
        click.echo(f"  {describe(row)}")


@main.command(epilog=examples("validate"))
@click.argument("scenario")
@set_option
@json_option
@quiet_option("description: the exit code says whether SCENARIO is valid")
def validate(scenario, overrides, as_json, quiet) -> None:
    """Check SCENARIO (every point of its grid) and print what it will run."""
    experiment = _load(scenario, overrides=overrides)
    if quiet:
        return
    if as_json:
        from gridsim.json_output import dumps, validate_record

        click.echo(dumps(validate_record(scenario, experiment)))
        return
    model = experiment.scenario
    if hasattr(model, "policies"):
        compared = _count(len(model.policies), "polic", "y", "ies")
        scheduler = getattr(model, "scheduler", "conservative")
        if scheduler != "conservative":
            name = scheduler if isinstance(scheduler, str) else scheduler.get("name")
            compared += f" under scheduler {name}"
    else:  # log replays compare schedulers under one policy
        from gridsim.selection.registry import build_criterion

        policy = build_criterion(model.policy).label
        compared = f"schedulers {', '.join(model.schedulers)} under {policy}"
    points = len(experiment.points)
    click.echo(
        f"{scenario}: valid {model.kind} scenario {model.name!r}, "
        f"{_count(model.replications, 'replication')}, seed {model.seed}, {compared}; "
        f"{_count(points, 'point')} x {_count(model.replications, 'replication')} = "
        f"{_count(points * model.replications, 'run')}"
    )
    for point in experiment.points if points > 1 else ():
        click.echo(f"  point {point.index}: {point.label()}")


@main.command(epilog=examples("merge"))
@click.argument("folders", nargs=-1, required=True, type=_PathNamed(path_type=Path))
@click.option("--out", "-o", type=_PathNamed(path_type=Path), required=True,
              help="New folder for the merged results.")  # fmt: skip
@quiet_option("line saying what was merged")
def merge(folders, out, quiet) -> None:
    """Merge results FOLDERS of one experiment (shards, replication ranges) into OUT.

    The merged tables are those one run of all their cells gives; folders of another
    scenario, seed or gridsim version, or holding a cell twice, are refused.
    """
    from gridsim.experiments.folders import merge as merge_folders

    manifest = merge_folders(list(folders), out, _command_line())
    cells = sum(b - a + 1 for ranges in manifest["done"].values() for a, b in ranges)
    if not quiet:
        click.echo(f"merged {len(folders)} folders into {out}: {cells} cells")


@main.command(epilog=examples("status"))
@click.argument("folder", type=_PathNamed(path_type=Path))
@json_option
def status(folder, as_json) -> None:
    """Show what results FOLDER holds: cells done and missing per point, and its history."""
    if as_json:
        from gridsim.json_output import dumps, status_record

        click.echo(dumps(status_record(folder)))
        return
    from gridsim.experiments.folders import describe

    click.echo(describe(folder))


@main.command(epilog=examples("scenarios"))
def scenarios() -> None:
    """List the scenarios shipped with gridsim: name, kind, what it runs."""
    from gridsim.bundled_scenarios import listing

    rows = listing()
    name_width, kind_width = (max(len(row[i]) for row in rows) for i in (0, 1))
    for name, kind, description in rows:
        click.echo(f"{name.ljust(name_width)}  {kind.ljust(kind_width)}  {description}")


@main.command(epilog=examples("init"))
@click.argument("name")
@click.argument("folder", required=False, default=".", type=_PathNamed(path_type=Path))
def init(name, folder) -> None:
    """Copy the bundled scenario NAME into FOLDER (default: here) to edit and run."""
    from gridsim.bundled_scenarios import copy_bundled

    path = copy_bundled(name, folder)
    click.echo(f"wrote {path}; run it with: gridsim run {path}")


@main.command(epilog=examples("policies"))
def policies() -> None:
    """List the resource-selection criteria and job-flow schedulers, with installed plugins."""
    from gridsim.scheduling.queue_policies import PLANNERS, describe_plugin_schedulers
    from gridsim.selection.registry import describe_criteria, describe_plugin_criteria

    rows = describe_criteria()
    plugins = describe_plugin_criteria()
    schedulers = describe_plugin_schedulers()
    width = max(len(name) for name, _ in rows + plugins + schedulers)
    for name, summary in rows:
        click.echo(f"{name.ljust(width)}  {summary}")
    if plugins:
        click.echo("\ninstalled criteria (gridsim.criteria entry points):")
    for name, summary in plugins:
        click.echo(f"{name.ljust(width)}  {summary}")
    click.echo(f"\njob-flow schedulers: {', '.join(PLANNERS)}")
    if schedulers:
        click.echo("installed schedulers (gridsim.schedulers entry points):")
    for name, summary in schedulers:
        click.echo(f"{name.ljust(width)}  {summary}")


def _run_options(command):
    """``--replication``, ``--queue-size`` and ``--point``: which run of a results folder a
    trace command reads."""
    for option in reversed((
        click.option("--replication", type=click.IntRange(min=0), default=0,
                     show_default=True),
        click.option("--queue-size", type=click.IntRange(min=1),
                     help="Needed if the run swept it."),
        click.option("--point", type=click.IntRange(min=0),
                     help="Point of a sweep (gridsim status lists them)."),
    )):  # fmt: skip
        command = option(command)
    return command


def _results_table(results: Path, name: str, command: str):
    """Table ``name`` of a results folder of a kind ``command`` reads (its declaration's
    ``trace_commands``); a UserError naming the kinds it supports otherwise."""
    from gridsim.analysis.results import load_table, read_manifest
    from gridsim.experiments.kinds import kinds_with

    kind, supported = read_manifest(results)["kind"], kinds_with(command)
    if kind not in supported:
        raise UserError(results, f"{command} reads the results of {' and '.join(supported)} "
                                 f"scenarios, not {kind}")  # fmt: skip
    table = load_table(results, name)
    if table is None:
        raise UserError(results, f"no {name} table: no replication finished")
    return table


def _one_run(results, table, policy, replication, queue_size, what, point=None):
    from gridsim.analysis.results import select_run

    values = None
    if point is not None:
        import json

        points = json.loads((results / "metadata.json").read_text()).get("points") or []
        if point >= len(points):
            raise UserError(
                f"--point {point}",
                f"{results} has {_count(len(points), 'point')} (0 to {len(points) - 1})",
            )
        values = {k: v for k, v in points[point].items() if k != "point"}
        values = {k: v if not isinstance(v, list | dict) else json.dumps(v, separators=(",", ":"))
                  for k, v in values.items()}  # fmt: skip
    try:
        return select_run(table, policy, replication, queue_size, what=what, point=values)
    except ValueError as error:
        raise UserError(results, str(error)) from None


def _check_outside_results(output: Path, option: str, folder: bool = False) -> None:
    """A UserError if ``output`` (a file, or with ``folder`` a folder written into) lies in a
    results folder: a file written there could replace one of its tables or its metadata."""
    import os

    from gridsim.experiments.store import enclosing_results_folder

    place = enclosing_results_folder(output, itself=folder)
    if place is not None:
        shown = os.path.relpath(place)
        raise UserError(f"{option} {output}", f"is inside the results folder {shown}; "
                                              "write it elsewhere")  # fmt: skip


def _check_image_format(output: Path) -> None:
    """A UserError unless matplotlib can write an image named ``output`` (by its suffix)."""
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    if output.suffix.lstrip(".").lower() not in formats:
        known = ", ".join(f".{name}" for name in sorted(formats))
        raise UserError(f"--output {output}", f"unknown image format {output.suffix!r}; "
                                              f"expected one of {known}")  # fmt: skip


@main.command(epilog=examples("gantt"))
@click.argument("results", type=_PathNamed(exists=True, file_okay=False, path_type=Path))
@click.option("--policy", required=True, help="Policy label, e.g. CoP.")
@_run_options
@click.option("--from", "start", type=_FiniteFloat(),
              help="Show from this time (time units; a log's: s since its start).")  # fmt: skip
@click.option("--to", "end", type=_FiniteFloat(), help="Show up to this time.")
@click.option("--output", "-o", type=_PathNamed(path_type=Path), required=True,
              help="Image file (.png, .svg, .pdf).")  # fmt: skip
@quiet_option("line naming the file written")
def gantt(results, policy, replication, queue_size, point, start, end, output, quiet) -> None:
    """Draw the Gantt chart of one run of a job-flow or log-replay RESULTS folder."""
    from gridsim.analysis.plots import plot_gantt

    _check_image_format(output)
    _check_outside_results(output, "--output")
    tasks, kind, scenario = _gantt_tasks(results, policy, replication, queue_size, point,
                                         windowed=start is not None or end is not None)  # fmt: skip
    window = None
    if start is not None or end is not None:
        window = (start or 0.0, end if end is not None else float(tasks["end"].max()))
        if window[1] <= window[0]:
            raise UserError(f"--from {window[0]:g} --to {window[1]:g}",
                            "the window shown must end after it starts")  # fmt: skip
    size = f", {queue_size} jobs" if queue_size else ""
    figure = plot_gantt(tasks, title=f"{results.name}: {policy}, replication {replication}{size}",
                        window=window, time_unit=kind.time_unit,
                        origin=kind.time_origin(scenario))  # fmt: skip
    with writing(output):
        figure.savefig(output, dpi=150)
    if not quiet:
        click.echo(f"wrote {output}")


#: A log replay's Gantt chart without --from/--to is refused beyond this many jobs.
GANTT_MOST_JOBS = 2000


def _gantt_tasks(results, policy, replication, queue_size, point, windowed: bool):
    """The tasks the Gantt chart draws: a job flow's tasks table, or a replay's jobs on the
    nodes of their interval sets; the kind's declaration and the resolved scenario."""
    from gridsim.analysis.results import load_table, read_manifest
    from gridsim.analysis.timelines import tasks_of_jobs
    from gridsim.experiments.kinds import declaration

    manifest = read_manifest(results)
    kind = declaration(manifest["kind"])
    scenario = manifest.get("scenario_resolved") or {}
    if load_table(results, "tasks") is not None:
        tasks = _one_run(results, _results_table(results, "tasks", "gantt"), policy,
                         replication, queue_size, "tasks", point)  # fmt: skip
        return tasks, kind, scenario
    jobs = _one_run(results, _results_table(results, "jobs", "gantt"), policy, replication,
                    queue_size, "jobs", point)  # fmt: skip
    if (jobs["allocated_resources"].fillna("") == "").all():
        raise UserError(results, "no job's nodes were recorded (record_nodes: false)")
    if not windowed and len(jobs) > GANTT_MOST_JOBS:
        last = float(jobs["finish_time"].max())
        raise UserError(results, f"{len(jobs)} jobs are too many for one chart: choose a window "
                        f"with --from/--to ({kind.time_unit} since the start, 0 to {last:.0f}), "
                        "or draw the whole schedule with gridsim explore")  # fmt: skip
    return tasks_of_jobs(jobs), kind, scenario


@main.command(epilog=examples("report"))
@click.argument("results", nargs=-1, required=True,
                type=_PathNamed(exists=True, file_okay=False, path_type=Path))  # fmt: skip
@click.option(
    "--out",
    "-o",
    type=_PathNamed(file_okay=False, path_type=Path),
    default=Path("report"),
    show_default=True,
    help="Folder for the report.",
)
@click.option("--no-explore", is_flag=True,
              help="Leave out the interactive explorer pages (one per policy).")  # fmt: skip
@quiet_option("line naming the files written")
def report(results, out, no_explore, quiet) -> None:
    """Write report.md and report.html (tables and figures) for RESULTS folders.

    Folders of the same scenario kind are combined into one comparison.
    """
    from gridsim.analysis.report import write_report

    _check_outside_results(out, "--out", folder=True)
    path = write_report(list(results), out, explore=not no_explore)
    if not quiet:
        click.echo(f"wrote {path} and {path.with_suffix('.html')}")


@main.command(epilog=examples("explore"))
@click.argument("results", type=_PathNamed(exists=True, file_okay=False, path_type=Path))
@click.option("--policy", help="Policy label, e.g. CoP [the baseline].")
@_run_options
@click.option("--output", "-o", type=_PathNamed(path_type=Path), required=True,
              help="HTML file (works offline).")  # fmt: skip
@click.option("--colour-by", type=click.Choice(["energy_kwh", "electricity_cost", "carbon_kg"]),
              help="Colour the jobs by their energy, electricity cost or carbon (a run with a "
                   "power model) [by job].")  # fmt: skip
@quiet_option("line naming the file written")
def explore(results, policy, replication, queue_size, point, output, colour_by, quiet) -> None:
    """Write an interactive schedule explorer of one run of RESULTS (one HTML file).

    A Gantt chart of nodes against time with zoom and pan, a tooltip per job, a click that
    outlines the jobs a job waited behind, and processors in use and jobs waiting below;
    with --colour-by, jobs coloured by their energy, electricity cost or carbon.
    """
    try:
        import bokeh  # noqa: F401
    except ImportError:
        raise UserError(
            "gridsim explore", "needs Bokeh: pip install 'gridsim-sched[explore]'"
        ) from None
    import gridsim
    from gridsim.analysis.explore import ExploreError, write_explorer

    _check_outside_results(output, "--output")
    if output.suffix.lower() not in (".html", ".htm"):
        raise UserError(f"--output {output}", "the explorer is an HTML page: name it .html")
    _results_table(results, "jobs", "explore")
    loaded = gridsim.load_results(results)
    policy = policy or loaded.baseline
    selection = {"replication": replication}
    if queue_size is not None:
        selection["queue_size"] = queue_size
    one = _one_run(results, loaded.jobs, policy, replication, queue_size, "jobs", point)
    selection.update({c: one[c].iloc[0] for c in loaded.axes if c in one.columns and c != "policy"})
    try:
        with writing(output):
            drawn = write_explorer(loaded, output, policy=policy, selection=selection,
                                   colour_by=colour_by)  # fmt: skip
    except ExploreError as error:
        raise UserError(results, str(error)) from None
    if not quiet:
        size = output.stat().st_size / 1e6
        click.echo(f"wrote {output} ({drawn} jobs of {policy}, {size:.1f} MB)")


@main.command(epilog=examples("export"))
@click.argument("results", type=_PathNamed(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["swf", "batsim"]),
    required=True,
    help="swf: Standard Workload Format; batsim: Batsim's jobs.csv.",
)
@click.option("--policy", required=True, help="Policy label, e.g. CoP.")
@_run_options
@click.option("--output", "-o", type=_PathNamed(path_type=Path), required=True,
              help="Output file (.swf, .swf.gz or .csv).")  # fmt: skip
@click.option("--time-unit", "time_unit_s", type=_FiniteFloat(positive=True),
              default=1.0, show_default=True,
              help="Seconds per simulation time unit (job flows).")  # fmt: skip
@quiet_option("line naming the file written")
def export(results, fmt, policy, replication, queue_size, point, output, time_unit_s,
           quiet) -> None:  # fmt: skip
    """Export the job trace of one run of a job-flow or log-replay RESULTS folder."""
    from gridsim.analysis.export import export_run

    _check_outside_results(output, "--output")
    _check_export_name(output, fmt)
    jobs = _one_run(results, _results_table(results, "jobs", "export"), policy, replication,
                    queue_size, "jobs", point)  # fmt: skip
    run = f"{policy} replication {replication}"
    run += f" queue_size {queue_size}" if queue_size else ""
    try:
        with writing(output):
            export_run(results, jobs, fmt, output, run=run, time_unit_s=time_unit_s)
    except ValueError as error:
        scale = f" (times scaled by --time-unit {time_unit_s:g})" if time_unit_s != 1 else ""
        raise UserError(results, f"{error}{scale}") from None
    if not quiet:
        click.echo(f"wrote {output} ({len(jobs)} jobs)")


#: The file names each export format writes (a ``.gz`` name is compressed), and what it is.
_EXPORT_NAMES = {"swf": (".swf", ".swf.gz"), "batsim": (".csv", ".csv.gz")}
_EXPORT_WRITES = {"swf": "the Standard Workload Format", "batsim": "Batsim's CSV"}


def _check_export_name(output: Path, fmt: str) -> None:
    """Refuse a file name that says the other format (``-o trace.swf`` with batsim's CSV)."""
    for other, names in _EXPORT_NAMES.items():
        if other != fmt and output.name.lower().endswith(names):
            raise UserError(f"--output {output}", f"--format {fmt} writes {_EXPORT_WRITES[fmt]}; "
                            f"name the file {' or '.join(_EXPORT_NAMES[fmt])}")  # fmt: skip


@main.command(epilog=examples("reproduce"))
@click.argument("figure", nargs=-1)
@click.option("--list", "list_figures", is_flag=True, help="Name every published figure.")
@click.option("--all", "all_figures", is_flag=True, help="Reproduce every figure.")
@click.option("--quick", is_flag=True, help="Small replication counts (minutes, not hours).")
@click.option("--replications", "-r", type=click.IntRange(min=2, max=MAX_REPLICATIONS),
              help="Override the count [the paper's, or --quick's].")  # fmt: skip
@set_option
@_jobs_option
@click.option("--out", "-o", type=_PathNamed(file_okay=False, path_type=Path),
              help="Folder for the comparison tables and the runs (a stopped "
                   "reproduction resumes from it).")  # fmt: skip
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace runs in --out of another scenario or seed (e.g. other --set).",
)
@progress_option
@quiet_option("progress")
def reproduce(figure, list_figures, all_figures, quick, replications, overrides, jobs, out,
              overwrite, progress, quiet) -> None:  # fmt: skip
    """Run published FIGUREs (ids from --list) and print published next to gridsim.

    Figures of one scenario share its runs (003-fig1 003-fig2; the 004 figures). With -o, the
    runs are an ordinary results folder: the same command resumes a stopped reproduction, and
    a smaller -r reuses the first replications of a larger one.
    """
    from gridsim.reproduce import find_figure, load_catalogue
    from gridsim.reproduce import reproduce as run_figure
    from gridsim.reproduce.verdicts import summary_line

    try:
        catalogue = load_catalogue()
        if list_figures:
            for entry in catalogue.figures:
                click.echo(f"{entry.id.ljust(13)} [{entry.cite}] {entry.source}: {entry.title}")
            return
        if all_figures == bool(figure):
            raise UserError("gridsim reproduce", "name FIGUREs or --all (see --list)")
        figures = catalogue.figures if all_figures else [find_figure(f) for f in figure]
        cache: dict = {}
        verdicts: list[str] = []
        for entry in figures:
            table, text = run_figure(
                entry, replications, quick=quick, overrides=overrides, jobs=jobs, out_dir=out,
                progress=False if quiet else progress, cache=cache, overwrite=overwrite,
            )  # fmt: skip
            click.echo(text + "\n")
            verdicts += list(table["verdict"])
        click.echo(summary_line(verdicts))
    except ScenarioError as error:
        raise UserError("gridsim reproduce", str(error)) from None

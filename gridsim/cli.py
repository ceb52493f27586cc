"""The ``gridsim`` command: run, validate, list policies, draw, report and export.

Every user error (bad YAML, unknown criterion, a value out of range) is printed as one line
naming the field, with exit code 2 and no traceback.
"""

from __future__ import annotations

import shlex
import sys
from importlib import resources
from pathlib import Path

import click

from gridsim.config import ScenarioError
from gridsim.experiments.kinds import kind_module, load_scenario

QUICKSTART = "quickstart"


def _scenario_source(scenario: str | None) -> str | Path:
    if scenario in (None, QUICKSTART):
        return resources.files("gridsim").joinpath("data/quickstart.yaml").read_text()
    return Path(scenario)


def _fail(message: str) -> None:
    click.echo(f"gridsim: error: {message}", err=True)
    sys.exit(2)


def _load(scenario: str | None, log: Path | None = None):
    try:
        source = _scenario_source(scenario)
        if log is not None:
            source = _with_log(source, log)
        return load_scenario(source)
    except ScenarioError as error:
        _fail(f"{scenario or QUICKSTART}: {error}")
        raise  # unreachable


def _with_log(source: str | Path, log: Path) -> str:
    """The scenario's YAML text with ``workload.path`` set to ``log`` (``--log``)."""
    import yaml

    from gridsim.config import read_yaml

    document, _ = read_yaml(source)
    if document.get("kind") != "swf_replay":
        raise ScenarioError(f"--log applies to swf_replay scenarios, not {document.get('kind')!r}")
    workload = document.get("workload") or {}
    if not isinstance(workload, dict):
        raise ScenarioError("workload: expected a mapping")
    document["workload"] = {**workload, "path": str(log.expanduser().resolve())}
    text = yaml.safe_dump(document, sort_keys=False)
    return f"# workload.path set by --log {log}\n{text}"


def _default_out(name: str) -> Path:
    base = Path("results") / name
    candidate, number = base, 1
    while candidate.exists() and any(candidate.iterdir()):
        number += 1
        candidate = base.with_name(f"{base.name}-{number}")
    return candidate


@click.group()
@click.version_option(package_name="gridsim-sched")
def main() -> None:
    """gridsim: simulate grid and cloud job scheduling policies."""


@main.command()
@click.argument("scenario", required=False)
@click.option("--replications", "-r", type=click.IntRange(min=1), help="Override the count.")
@click.option("--seed", "-s", type=click.IntRange(min=0), help="Override the scenario seed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes [all cores].")
@click.option("--out", "-o", type=click.Path(path_type=Path), help="Results folder.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--log", type=click.Path(path_type=Path),
              help="Workload log replacing workload.path (swf_replay scenarios).")  # fmt: skip
@click.option("--debug", is_flag=True, help="Print the traceback of a failed run.")
def run(scenario, replications, seed, jobs, out, quiet, log, debug) -> None:
    """Run SCENARIO (a YAML file; default: the embedded quick-start) and summarise it."""
    from gridsim.analysis.stats import format_summary
    from gridsim.experiments.runner import run_experiment

    model, text = _load(scenario, log)
    out = out or _default_out(model.name)
    result = run_experiment(
        model,
        text,
        replications=replications,
        seed=seed,
        jobs=jobs,
        out_dir=out,
        command=shlex.join(["gridsim", *sys.argv[1:]]),
        progress=not quiet,
    )
    module = kind_module(model)
    keys = [c for c in ("policy", "goal", "queue_size") if c in result.summary.columns]
    metrics = getattr(module, "DISPLAY_METRICS", None) or [
        c.removesuffix("_mean") for c in result.summary.columns if c.endswith("_mean")
    ]
    click.echo(format_summary(result.summary, keys, metrics))
    if "paired" in result.tables:
        click.echo("\npaired against the first policy, same replications (policy - baseline):")
        for _, row in result.tables["paired"].iterrows():
            click.echo(
                f"  {row['policy']} vs {row['baseline']}: {row['metric']} "
                f"{row['difference_mean']:+.4g} ± {row['difference_ci95']:.2g} "
                f"({row['relative_mean']:+.2%} ± {row['relative_ci95']:.2%}), "
                f"{int(row['pairs'])} pairs"
            )
    click.echo(f"\nresults: {out}  ({result.metadata['replications_completed']} replications)")
    if result.status != "complete":
        if debug and result.traceback:
            click.echo(result.traceback, err=True)
        _fail(f"run {result.status}: {result.error}; finished replications were written")


@main.command()
@click.argument("scenario")
def validate(scenario) -> None:
    """Check SCENARIO and print what it will run."""
    model, _ = _load(scenario)
    if hasattr(model, "policies"):
        compared = f"{len(model.policies)} policies"
        scheduler = getattr(model, "scheduler", "conservative")
        if scheduler != "conservative":
            name = scheduler if isinstance(scheduler, str) else scheduler.get("name")
            compared += f" under scheduler {name}"
    else:  # log replays compare schedulers under one policy
        from gridsim.selection.criteria import build_criterion

        policy = build_criterion(model.policy).label
        compared = f"schedulers {', '.join(model.schedulers)} under {policy}"
    click.echo(
        f"{scenario}: valid {model.kind} scenario {model.name!r}, "
        f"{model.replications} replications, seed {model.seed}, {compared}"
    )


@main.command()
def policies() -> None:
    """List the resource-selection criteria and job-flow schedulers, with installed plugins."""
    from gridsim.scheduling.queue_policies import PLANNERS, describe_plugin_schedulers
    from gridsim.selection.criteria import describe_criteria, describe_plugin_criteria

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


def _results_table(results: Path, name: str, command: str):
    import pandas as pd

    path = results / f"{name}.parquet"
    if not path.exists():
        _fail(f"{path} not found ({command} needs the results of a jobflow scenario)")
    return pd.read_parquet(path)


def _one_run(table, policy, replication, queue_size, what):
    from gridsim.analysis.results import select_run

    try:
        return select_run(table, policy, replication, queue_size, what=what)
    except ValueError as error:
        _fail(str(error))


@main.command()
@click.argument("results", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--policy", required=True, help="Policy label, e.g. CoP.")
@click.option("--replication", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--queue-size", type=click.IntRange(min=1), help="Needed if the run swept it.")
@click.option("--from", "start", type=float, help="Show from this time (time units).")
@click.option("--to", "end", type=float, help="Show up to this time (time units).")
@click.option("--output", "-o", type=click.Path(path_type=Path), required=True,
              help="Image file (.png, .svg, .pdf).")  # fmt: skip
def gantt(results, policy, replication, queue_size, start, end, output) -> None:
    """Draw the Gantt chart of one run of a job-flow RESULTS folder."""
    from gridsim.analysis.plots import plot_gantt

    tasks = _one_run(_results_table(results, "tasks", "gantt"), policy, replication,
                     queue_size, "tasks")  # fmt: skip
    window = None
    if start is not None or end is not None:
        window = (start or 0.0, end if end is not None else float(tasks["end"].max()))
    size = f", {queue_size} jobs" if queue_size else ""
    figure = plot_gantt(tasks, title=f"{results.name}: {policy}, replication {replication}{size}",
                        window=window)  # fmt: skip
    figure.savefig(output, dpi=150)
    click.echo(f"wrote {output}")


@main.command()
@click.argument("results", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))  # fmt: skip
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("report"),
    show_default=True,
    help="Folder for the report.",
)
def report(results, out) -> None:
    """Write report.md and report.html (tables and figures) for RESULTS folders.

    Folders of the same scenario kind are combined into one comparison.
    """
    from gridsim.analysis.report import write_report

    for folder in results:
        if not (folder / "metadata.json").exists():
            _fail(f"{folder}: not a gridsim results folder (no metadata.json)")
    try:
        path = write_report(list(results), out)
    except ValueError as error:
        _fail(str(error))
    click.echo(f"wrote {path} and {path.with_suffix('.html')}")


@main.command()
@click.argument("results", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["swf", "batsim"]),
    required=True,
    help="swf: Standard Workload Format; batsim: Batsim's jobs.csv.",
)
@click.option("--policy", required=True, help="Policy label, e.g. CoP.")
@click.option("--replication", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--queue-size", type=click.IntRange(min=1), help="Needed if the run swept it.")
@click.option("--output", "-o", type=click.Path(path_type=Path), required=True,
              help="Output file (.swf, .swf.gz or .csv).")  # fmt: skip
@click.option("--time-unit", "time_unit_s", type=click.FloatRange(min=0, min_open=True),
              default=1.0, show_default=True,
              help="Seconds per simulation time unit (job flows).")  # fmt: skip
def export(results, fmt, policy, replication, queue_size, output, time_unit_s) -> None:
    """Export the job trace of one run of a job-flow or log-replay RESULTS folder."""
    from gridsim.analysis.export import export_run

    jobs = _one_run(_results_table(results, "jobs", "export"), policy, replication,
                    queue_size, "jobs")  # fmt: skip
    run = f"{policy} replication {replication}"
    run += f" queue_size {queue_size}" if queue_size else ""
    try:
        export_run(results, jobs, fmt, output, run=run, time_unit_s=time_unit_s)
    except ValueError as error:
        _fail(str(error))
    click.echo(f"wrote {output} ({len(jobs)} jobs)")


@main.command()
@click.argument("figure", nargs=-1)
@click.option("--list", "list_figures", is_flag=True, help="Name every published figure.")
@click.option("--all", "all_figures", is_flag=True, help="Reproduce every figure.")
@click.option("--quick", is_flag=True, help="Small replication counts (minutes, not hours).")
@click.option("--replications", "-r", type=click.IntRange(min=2),
              help="Override the count [the paper's, or --quick's].")  # fmt: skip
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario field, e.g. environment.performance_step=0.")  # fmt: skip
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes [all cores].")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the comparison tables and the runs.")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def reproduce(figure, list_figures, all_figures, quick, replications, overrides, jobs, out,
              quiet) -> None:  # fmt: skip
    """Run published FIGUREs (ids from --list) and print published next to gridsim.

    Figures of one scenario share its runs (003-fig1 003-fig2; the 004 figures).
    """
    from gridsim.reproduce import find_figure, load_catalogue
    from gridsim.reproduce import reproduce as run_figure

    try:
        catalogue = load_catalogue()
        if list_figures:
            for entry in catalogue.figures:
                click.echo(f"{entry.id.ljust(13)} [{entry.cite}] {entry.source}: {entry.title}")
            return
        if all_figures == bool(figure):
            _fail("name FIGUREs or --all (see --list)")
        figures = catalogue.figures if all_figures else [find_figure(f) for f in figure]
        cache: dict = {}
        for entry in figures:
            _, text = run_figure(
                entry, replications, quick=quick, overrides=overrides, jobs=jobs, out_dir=out,
                progress=not quiet, cache=cache,
            )  # fmt: skip
            click.echo(text + "\n")
    except ScenarioError as error:
        _fail(str(error))

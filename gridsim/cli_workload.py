"""The workload commands: ``gridsim convert``, ``gridsim workload describe`` and ``gridsim
workload generate``.

Each command is a thin layer over :mod:`gridsim.workloads`: it checks its options, calls
:func:`~gridsim.workloads.convert.convert`, :func:`~gridsim.workloads.describe.describe` or
:func:`~gridsim.workloads.models.model_records`, and prints what was done. A bad file or
option ends as every gridsim command ends (one line naming the file and line, or the
option; exit code 2), with nothing written.
"""

from __future__ import annotations

from pathlib import Path

import click

from gridsim.cli_options import examples, json_option, quiet_option
from gridsim.errors import UserError, writing
from gridsim.workloads.convert import OUTPUT_NAMES
from gridsim.workloads.sources import FORMATS


def _named(ctx, param, value):
    """A path option or argument that is not empty (``""`` would be the current folder)."""
    if value is not None and not str(value).strip():
        raise click.BadParameter("an empty path; name a file or folder", ctx, param)
    return Path(value) if value is not None else None


_input = click.argument("source", type=click.Path(exists=True, dir_okay=False),
                        callback=_named)  # fmt: skip
_input_format = click.option("--from", "input_format", type=click.Choice(FORMATS),
                             help="Input format [recognised by content].")  # fmt: skip
_time_zone = click.option(
    "--time-zone",
    default="UTC",
    show_default=True,
    help="Time zone of a Slurm dump's local times (an IANA name).",
)
_machine = click.option("--machine-processors", type=click.IntRange(min=1),
                        help="The machine's size, where the input gives none.")  # fmt: skip


def _check_zone(time_zone: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserError(f"--time-zone {time_zone}", "unknown time zone (an IANA name such as "
                        "Europe/Stockholm, or UTC)") from None  # fmt: skip


def _check_target(target: Path, option: str) -> None:
    """A UserError if ``target`` is a folder or lies in a results folder."""
    from gridsim.experiments.store import enclosing_results_folder

    if target.is_dir():
        raise UserError(f"{option} {target}", "is a folder; name a file")
    if enclosing_results_folder(target) is not None:
        raise UserError(f"{option} {target}", "is inside a results folder; write it elsewhere")


@click.command(epilog=examples("convert"))
@_input
@click.argument("target", type=click.Path(), callback=_named)
@_input_format
@click.option("--to", "output_format", type=click.Choice(list(OUTPUT_NAMES)),
              help="Output format [by TARGET's name: .swf, .swf.gz, .json, .parquet].")  # fmt: skip
@_time_zone
@_machine
@click.option("--extra-data", is_flag=True,
              help="Batsim output: keep every field Batsim has no place for in each job's "
                   "extra_data (gridsim reads it back).")  # fmt: skip
@click.option("--skip-malformed", is_flag=True, help="Skip malformed SWF lines (counted).")
@quiet_option("summary")
def convert(source, target, input_format, output_format, time_zone, machine_processors,
            extra_data, skip_malformed, quiet) -> None:  # fmt: skip
    """Convert the workload SOURCE (SWF, Slurm sacct dump, Batsim JSON, Parquet) to TARGET.

    Says which jobs were left out and which fields TARGET's format has no place for.
    """
    from gridsim.workloads.convert import ConversionError, output_format_of
    from gridsim.workloads.convert import convert as convert_workload

    _check_zone(time_zone)
    _check_target(target, "TARGET")
    try:
        output_format_of(target, output_format)
        with writing(target):
            done = convert_workload(source, target, input_format=input_format,
                                    output_format=output_format, time_zone=time_zone,
                                    machine_processors=machine_processors, extra_data=extra_data,
                                    skip_malformed=skip_malformed)  # fmt: skip
    except ConversionError as error:
        raise UserError(target, str(error)) from None
    if not quiet:
        click.echo(done.summary())


@click.group(epilog=examples("workload"))
def workload() -> None:
    """Describe a workload, or generate one from a published model."""


@workload.command(epilog=examples("workload"))
@_input
@_input_format
@_time_zone
@_machine
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    callback=_named,
    help="Folder for a page of figures (workload.png, description.json, index.md).",
)
@json_option
def describe(source, input_format, time_zone, machine_processors, out, as_json) -> None:
    """Print the numbers to check before replaying SOURCE: jobs, span, machine, offered
    load, arrivals by hour and weekday, sizes, run times, estimate accuracy, users."""
    from gridsim.workloads.describe import describe as describe_workload
    from gridsim.workloads.describe import describe_text
    from gridsim.workloads.readers import read_workload

    _check_zone(time_zone)
    if out is not None and out.exists() and not out.is_dir():
        raise UserError(f"--out {out}", "is a file; name a folder")
    log = read_workload(source, format=input_format, time_zone=time_zone)
    if len(log.jobs) == 0:
        raise UserError(source, f"no job to describe ({log.report.job_lines} job records, "
                        f"{log.report.jobs_dropped} dropped)")  # fmt: skip
    description = describe_workload(log, machine_processors,
                                    time_zone if time_zone != "UTC" else None)  # fmt: skip
    if as_json:
        from gridsim.json_output import dumps

        click.echo(dumps(description.to_dict()))
    else:
        click.echo(describe_text(description))
    if out is not None:
        from gridsim.workloads.describe_page import write_page

        with writing(out):
            index = write_page(description, log.jobs, out)
        if not as_json:
            click.echo(f"wrote {index} and {out / 'workload.png'}")


@workload.command(epilog=examples("workload"))
@click.argument("model", type=click.Choice(["lublin"]))
@click.option("--jobs", "-n", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="How many jobs.")  # fmt: skip
@click.option("--out", "-o", type=click.Path(), callback=_named, required=True,
              help="Output file (.swf, .swf.gz, .json, .parquet).")  # fmt: skip
@click.option("--machine-processors", type=click.IntRange(min=1), default=128, show_default=True,
              help="The machine the sizes are drawn for.")  # fmt: skip
@click.option(
    "--job-classes",
    type=click.Choice(["batch_and_interactive", "typeless"]),
    default="batch_and_interactive",
    show_default=True,
    help="Two streams with their own parameters, or the whole-sample parameters.",
)
@click.option("--load", type=float, help="Offered load to aim at (scales every gap).")
@click.option("--seed", "-s", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--estimates", type=click.Choice(["tsafrir"]),
              help="Users' estimates from the Tsafrir-Etsion-Feitelson model.")  # fmt: skip
@click.option(
    "--largest-estimate",
    type=click.IntRange(min=3600),
    help="The machine's largest estimate, s [the longest run time, in whole hours].",
)
@quiet_option("summary")
def generate(model, jobs, out, machine_processors, job_classes, load, seed, estimates,
             largest_estimate, quiet) -> None:  # fmt: skip
    """Generate a flow of MODEL (lublin: Lublin and Feitelson, JPDC 2003) into a file."""
    import numpy as np
    from pydantic import ValidationError

    from gridsim.config import format_validation_error
    from gridsim.workloads.convert import ConversionError, output_format_of, write_records
    from gridsim.workloads.models import (
        LublinModel,
        TsafrirEstimates,
        model_records,
        with_estimates,
    )

    _check_target(out, "--out")
    try:
        fmt = output_format_of(out)
        config = LublinModel(model=model, jobs=jobs, machine_processors=machine_processors,
                             job_classes=job_classes, load=load)  # fmt: skip
        estimate_model = (TsafrirEstimates(model=estimates, largest_estimate=largest_estimate)
                          if estimates else None)  # fmt: skip
    except ValidationError as error:
        field, _, message = format_validation_error(error).partition(": ")
        raise UserError(f"--{field.replace('_', '-')}", message) from None
    except ConversionError as error:
        raise UserError(f"--out {out}", str(error)) from None
    if largest_estimate is not None and estimate_model is None:
        raise UserError("--largest-estimate", "applies with --estimates tsafrir")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    read = model_records(config, rng)
    if estimate_model is not None:
        try:
            read = with_estimates(read, estimate_model, rng)
        except ValueError as error:
            raise UserError("--largest-estimate", str(error)) from None
    with writing(out):
        done = write_records(read, out, fmt, machine_processors=machine_processors)
    if not quiet:
        click.echo(f"wrote {out}: {done.jobs_written} jobs of the {model} model on "
                   f"{machine_processors} processors (seed {seed})")  # fmt: skip

"""Options several ``gridsim`` commands share, and the examples each command's ``--help`` ends
with (a test runs every example's options through the command's parser)."""

from __future__ import annotations

from collections.abc import Callable

import click
from click.decorators import FC

#: ``--set PATH=VALUE`` (repeatable): a scenario field changed without editing the file.
set_option = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="PATH=VALUE",
    help="Set a scenario field (the dotted paths of sweep:; the value is YAML), e.g. "
    "--set seed=3 --set environment.nodes=20. Repeatable; recorded in the run history.",
)
#: ``--json``: one JSON object on stdout instead of the text (docs/scripting.md).
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object (docs/scripting.md)."
)
#: ``--progress/--no-progress``: the bar is shown only on a terminal unless forced.
progress_option = click.option(
    "--progress/--no-progress",
    default=None,
    help="Show the progress (whole lines when stderr is not a terminal) or hide it "
    "[a bar when stderr is a terminal].",
)


def quiet_option(what: str) -> Callable[[FC], FC]:
    """``-q/--quiet``, hiding ``what`` (errors are always printed)."""
    return click.option("--quiet", "-q", is_flag=True, help=f"Print no {what}.")


#: Each command's examples, as typed.
EXAMPLES = {
    "gridsim": [
        "gridsim run                                  # the embedded quick-start",
        "gridsim run window-search -r 300 -j 2 -o results/ws",
        "gridsim status results/ws",
        "gridsim report results/ws -o report",
        'eval "$(_GRIDSIM_COMPLETE=bash_source gridsim)"   # completion in bash',
    ],
    "run": [
        "gridsim run window-search -r 300 -j 2 -o results/ws",
        "gridsim run window-search --set seed=3 --set request.n=5",
        "gridsim run S -r 2000 --shard 1/3 -o part1   # one of three machines",
        "gridsim run S --cluster local:4 --no-progress -o results/s",
        "gridsim run S -q --json | jq '.summary[0]'",
        "gridsim run swf-replay --log HPC2N-2002-2.2-cln.swf.gz",
        "gridsim run swf-replay --log sacct.txt --set workload.mapping.machine_processors=512",
    ],
    "validate": [
        "gridsim validate static-queue-over-load",
        "gridsim validate S --set environment.nodes=0   # exit 2: the field is named",
        "gridsim validate S --json | jq .runs",
    ],
    "merge": ["gridsim merge part1 part2 part3 -o all"],
    "status": ["gridsim status results/cp", "gridsim status results/cp --json | jq .cells_missing"],
    "policies": ["gridsim policies"],
    "scenarios": ["gridsim scenarios"],
    "init": ["gridsim init window-search my-study", "gridsim init swf-replay"],
    "gantt": [
        "gridsim gantt results/cp --policy CoP --queue-size 50 -o cop.png",
        "gridsim gantt results/sweep --policy CoP --point 3 --from 0 --to 500 -o cop.svg",
        "gridsim gantt results/kth --policy easy --from 864000 --to 950400 -o easy-day-10.png",
    ],
    "explore": [
        "gridsim explore results/kth --policy easy -o easy.html",
        "gridsim explore results/cp --policy CoP --queue-size 50 -o cop.html",
        "gridsim explore results/energy --policy MinCarbon --colour-by carbon_kg -o carbon.html",
    ],
    "report": ["gridsim report results/ws -o report", "gridsim report results/a results/b -o ab"],
    "export": [
        "gridsim export results/cp --format swf --policy CoP --queue-size 50 -o cop.swf",
        "gridsim export results/replay --format batsim --policy easy -o jobs.csv",
    ],
    "convert": [
        "gridsim convert HPC2N-2002-2.2-cln.swf.gz hpc2n.json",
        "gridsim convert sacct.txt cluster.swf --machine-processors 2048",
        "gridsim convert hpc2n.json hpc2n.parquet",
    ],
    "workload": [
        "gridsim workload describe sacct.txt -o cluster-page",
        "gridsim workload describe hpc2n.json --json | jq .offered_load",
        "gridsim workload generate lublin -n 10000 --machine-processors 256 "
        "--job-classes typeless -o lublin256.swf",
        "gridsim workload generate lublin -n 5000 --load 0.8 --estimates tsafrir -o flow.json",
    ],
    "reproduce": [
        "gridsim reproduce --list",
        "gridsim reproduce 002-table2 -r 300 -j 2 -o reproduced",
        "gridsim reproduce 003-fig1 --quick --set environment.performance_step=0",
        "gridsim reproduce --all --quick",
    ],
}


def examples(command: str) -> str:
    """The ``--help`` epilog of ``command``: its examples, kept as written (click's ``\\b``
    stops it from rewrapping them)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])

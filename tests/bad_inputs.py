"""Bad inputs a user might give gridsim, with what each error line must name.

Shared by the battery (``tests/test_bad_inputs.py``) and the page listing every message
(``python tools/render_errors_doc.py`` writes docs/errors.md). Every case runs ``gridsim``
in a working folder that already holds two results folders (``results/tiny``, a window
search, and ``results/flow``, a job flow) and the files the case writes; paths in commands
and messages are relative to it.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from gridsim.cli import main

REPOSITORY = Path(__file__).resolve().parents[1]

WINDOW_SEARCH = """\
name: tiny
kind: window_search
replications: 2
environment: {nodes: 10, horizon: 300}
request: {n: 2, volume: 100, budget: 500}
policies: [FirstFit, MaxQ]
"""
JOB_FLOW = """\
name: flow
kind: jobflow
replications: 2
environment: {nodes: 8, performance: {low: 2, high: 4}, local_load: {max_utilisation: 0}}
jobs: {n: [1, 4]}
queue_sizes: [6]
policies: [BFstart, BFfinish]
"""
BATCH = """\
name: cycles
kind: batch
seed: 1
replications: 2
policies: [{name: ALP}, {name: AMP}]
"""
CLOUD = (REPOSITORY / "scenarios" / "cloud-federation-dytss.yaml").read_text()
SWF_REPLAY = """\
name: replay
kind: swf_replay
workload: {path: log.swf}
schedulers: [fcfs, easy]
"""
LOG_HEADER = "; MaxProcs: 8\n"
#: SWF job lines: id, submit, wait, run time, processors (allocated, requested), estimate.
JOB_LINES = [
    f"{i} {10 * i} -1 {run} {procs} -1 -1 {procs} {2 * run} -1 1 1 1 -1 -1 -1 -1 -1\n"
    for i, (run, procs) in enumerate([(100, 2), (50, 4), (80, 1), (120, 8)], start=1)
]
GOOD_LOG = LOG_HEADER + "".join(JOB_LINES)


def alias_bomb(levels: int = 9) -> str:
    """A window search whose description holds ``levels`` lists of nine aliases each of the
    previous one (9**levels values once followed), and whose sweep repeats the last."""
    lists = ["&l0 [" + ", ".join(["1"] * 9) + "]"]
    lists += [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    described = f"name: tiny\ndescription: [{', '.join(lists)}]\n"
    return (WINDOW_SEARCH.replace("name: tiny\n", described)
            + f"sweep: {{request.volume: [*l{levels - 1}]}}\n")  # fmt: skip


def edited(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` (which must be there) replaced by ``new``."""
    assert old in text, old
    return text.replace(old, new)


CAPPED_FLOW = edited(
    JOB_FLOW,
    "local_load: {max_utilisation: 0}",
    "local_load: {max_utilisation: 0}, power: {idle_watts: 1, busy_watts: 2}, "
    "power_cap: {value: 100}",
)


def log_with(line: str, replace: int = 2) -> str:
    """The good log with its job line number ``replace`` (1-based) replaced by ``line``."""
    lines = list(JOB_LINES)
    lines[replace - 1] = line + "\n"
    return LOG_HEADER + "".join(lines)


#: A change to a file already there (a results folder's): its bytes -> new bytes.
Change = Callable[[bytes], bytes]
#: The content of a case's file that is a FIFO (named pipe) rather than a regular file.
FIFO = object()


@dataclass(frozen=True)
class Case:
    """One bad input: the command (after ``gridsim``), the files it needs, the changes made
    to files already there (by glob pattern, the first match), and the text its one error
    line must contain (the field, option, or file and line at fault).

    ``removed``: files or folders of the results folders removed before the case's files are
    written; ``file_size_limit``: bytes, the command then runs in a process of its own under
    that limit (``ulimit -f``); ``absent``: files the command must not have written."""

    group: str
    what: str
    args: tuple[str, ...]
    names: str
    files: dict[str, str | bytes | object] = field(default_factory=dict)
    exit_code: int = 2
    changes: tuple[tuple[str, Change], ...] = ()
    removed: tuple[str, ...] = ()
    file_size_limit: int | None = None
    absent: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.group}: {self.what}"


def scenario(group: str, what: str, text: str | bytes, names: str,
             files: dict[str, str | bytes | object] | None = None) -> Case:  # fmt: skip
    """A case that validates the scenario file ``s.yaml`` holding ``text``."""
    return Case(group, what, ("validate", "s.yaml"), names, {"s.yaml": text, **(files or {})})


def window_search(what: str, old: str, new: str, names: str) -> Case:
    return scenario("window_search", what, edited(WINDOW_SEARCH, old, new), names)


def job_flow(what: str, old: str, new: str, names: str,
             files: dict[str, str | bytes | object] | None = None) -> Case:  # fmt: skip
    return scenario("jobflow", what, edited(JOB_FLOW, old, new), names, files)


def swf_log(what: str, log: str | bytes, names: str, name: str = "log.swf") -> Case:
    text = SWF_REPLAY.replace("log.swf", name)
    return Case("SWF log", what, ("run", "s.yaml", "-q", "-j", "1"), names,
                {"s.yaml": text, name: log})  # fmt: skip


def option(what: str, names: str, *args: str, files: dict[str, str | bytes] | None = None) -> Case:
    return Case("command line", what, args, names, files or {})


SACCT_HEADER = "JobID|Submit|Start|End|Timelimit|State|AllocCPUS|AllocTRES\n"
SACCT_JOBS = [
    "10|2024-03-04T08:00:00|2024-03-04T08:00:05|2024-03-04T09:00:05|02:00:00|COMPLETED|4|"
    "cpu=4,mem=8G,node=1\n",
    "11|2024-03-04T08:10:00|2024-03-04T08:20:00|2024-03-04T08:50:00|01:00:00|COMPLETED|8|"
    "cpu=8,mem=16G,node=1\n",
]
SACCT_REPLAY = SWF_REPLAY.replace("log.swf}", "log.txt, mapping: {machine_processors: 16}}")


def slurm_dump(what: str, dump: str, names: str, scenario: str = SACCT_REPLAY) -> Case:
    """A replay of the sacct dump ``log.txt`` (the good dump's second job edited)."""
    return Case("Slurm dump", what, ("run", "s.yaml", "-q", "-j", "1"), names,
                {"s.yaml": scenario, "log.txt": dump})  # fmt: skip


def sacct_with(old: str, new: str) -> str:
    assert old in SACCT_JOBS[1], old
    return SACCT_HEADER + SACCT_JOBS[0] + SACCT_JOBS[1].replace(old, new)


BATSIM_WORKLOAD = {
    "nb_res": 8,
    "jobs": [{"id": 1, "subtime": 0, "walltime": 100, "res": 2, "profile": "p"},
             {"id": 2, "subtime": 5, "walltime": 100, "res": 4, "profile": "p"}],
    "profiles": {"p": {"type": "delay", "delay": 60}},
}  # fmt: skip


def batsim_workload(what: str, edit: Callable[[Any], Any], names: str) -> Case:
    """A replay of the Batsim workload ``log.json`` (the good one edited), one job a line."""
    document = json.loads(json.dumps(BATSIM_WORKLOAD))
    edit(document)
    text = json.dumps(document, indent=1) if isinstance(document, dict) else json.dumps(document)
    return Case(
        "Batsim workload",
        what,
        ("run", "s.yaml", "-q", "-j", "1"),
        names,
        {"s.yaml": SWF_REPLAY.replace("log.swf", "log.json"), "log.json": text},
    )


def workload_command(what: str, names: str, *args: str, files: dict[str, str] | None = None,
                     absent: tuple[str, ...] = ()) -> Case:  # fmt: skip
    return Case("workload commands", what, args, names, files or {}, absent=absent)


LUBLIN_REPLAY = SWF_REPLAY.replace("{path: log.swf}", "{model: lublin, jobs: 50}")


def parquet_of(columns: dict[str, list[Any]]) -> bytes:
    """A Parquet file holding ``columns``."""
    import pandas as pd

    buffer = io.BytesIO()
    pd.DataFrame(columns).to_parquet(buffer)
    return buffer.getvalue()


def cut_short(data: bytes) -> bytes:
    """A file cut off after 100 bytes (a copy interrupted, a full disk)."""
    return data[:100]


def emptied(data: bytes) -> bytes:
    return b""


def json_edit(edit: Callable[[Any], Any]) -> Change:
    """A change to a JSON file: ``edit`` gets the parsed document and returns the new one."""
    return lambda data: json.dumps(edit(json.loads(data))).encode()


def with_key(key: str, value: Any) -> Callable[[dict], dict]:
    return lambda document: {**document, key: value}


def without_key(key: str) -> Callable[[dict], dict]:
    return lambda document: {k: v for k, v in document.items() if k != key}


def results_folder(what: str, names: str, pattern: str, change: Change, *args: str,
                   files: dict[str, str | bytes] | None = None) -> Case:  # fmt: skip
    """A command on a results folder one of whose files was damaged or edited by hand."""
    return Case("results folder", what, args, names, files or {},
                changes=((pattern, change),))  # fmt: skip


def plugin(what: str, names: str, module: str, source: str | None,
           reference: str = "") -> Case:  # fmt: skip
    """A window search naming the plugin criterion ``module:Crit`` (file ``module.py``
    holding ``source``, none if None)."""
    reference = reference or f"{module}:Crit"
    text = edited(WINDOW_SEARCH, "MaxQ]", f"{reference}]")
    files = {} if source is None else {f"{module}.py": source}
    return scenario("plugin", what, text, names, files=files)


def sweep(what: str, section: str, names: str) -> Case:
    return scenario("sweep", what, WINDOW_SEARCH + section + "\n", names)


FLOW_CHUNK = "results/flow/{table}/point=0/rep-*.parquet"
FLOW_METADATA = "results/flow/metadata.json"
TINY_METADATA = "results/tiny/metadata.json"
GANTT = ("gantt", "results/flow", "--policy", "BFstart", "-o", "chart.png")
EXPORT = ("export", "results/flow", "--format", "swf", "--policy", "BFstart", "-o", "out.swf")


# fmt: off
CASES: list[Case] = [
    # Any scenario file.
    scenario("scenario file", "malformed YAML", "name: x\nkind: [window_search\n", "line 3"),
    scenario("scenario file", "a tab in the indentation", "name: x\n\tkind: jobflow\n",
             "line 2"),
    scenario("scenario file", "a list, not a mapping", "- a\n- b\n", "s.yaml"),
    scenario("scenario file", "an empty file", "", "s.yaml"),
    scenario("scenario file", "not UTF-8 text", b"\xff\xfe name: x\n", "s.yaml"),
    scenario("scenario file", "aliases expanding to 926 million values", alias_bomb(),
             "aliases"),
    scenario("scenario file", "lists nested 100,000 deep",
             "name: x\nkind: jobflow\ndescription: " + "[" * 100_000 + "]" * 100_000 + "\n",
             "nested too deeply"),
    scenario("scenario file", "a key given twice", WINDOW_SEARCH + "name: again\n",
             "duplicate key 'name'"),
    Case("scenario file", "no such file", ("validate", "missing.yaml"), "missing.yaml"),
    Case("scenario file", "a misspelt bundled scenario", ("run", "windowsearch", "-q"),
         "did you mean 'window-search'?"),
    Case("scenario file", "a device that never ends", ("validate", "/dev/zero"), "/dev/zero"),
    scenario("scenario file", "no kind", "name: x\n", "kind"),
    scenario("scenario file", "an unknown kind",
             edited(WINDOW_SEARCH, "kind: window_search", "kind: window_serch"), "kind"),
    scenario("scenario file", "replications zero",
             edited(WINDOW_SEARCH, "replications: 2", "replications: 0"), "replications"),
    scenario("scenario file", "a billion replications",
             edited(WINDOW_SEARCH, "replications: 2", "replications: 1e9"), "replications"),
    scenario("scenario file", "a negative seed", WINDOW_SEARCH + "seed: -1\n", "seed"),
    scenario("scenario file", "a name that leaves results/",
             edited(WINDOW_SEARCH, "name: tiny", "name: ../../x"), "name: '../../x'"),
    scenario("scenario file", "an absolute path as the name",
             edited(WINDOW_SEARCH, "name: tiny", "name: /tmp/x"), "name: '/tmp/x'"),
    scenario("scenario file", "a sweep of an unknown field",
             WINDOW_SEARCH + "sweep: {request.nn: [1, 2]}\n", "request.nn"),
    # Kind window_search.
    window_search("a misspelt top-level key", "policies:", "polices:", "polices"),
    window_search("a misspelt key hiding a required one", "budget: 500", "budjet: 500",
                  "request.budjet"),
    window_search("a negative node count", "n: 2", "n: -3", "request.n"),
    window_search("true as a number", "nodes: 10", "nodes: true", "environment.nodes"),
    window_search("a number in quotes", "volume: 100", 'volume: "100"', "request.volume"),
    window_search("an infinite volume", "volume: 100", "volume: .inf", "request.volume"),
    window_search("a NaN budget", "budget: 500", "budget: .nan", "request.budget"),
    window_search("a fractional node count", "nodes: 10", "nodes: 2.5", "environment.nodes"),
    window_search("a reversed range", "horizon: 300}",
                  "horizon: 300, performance: {low: 5, high: 1}}", "environment.performance"),
    window_search("no policies", "policies: [FirstFit, MaxQ]", "policies: []", "policies"),
    window_search("an unknown criterion", "MaxQ]", "MaxQQ]", "MaxQQ"),
    window_search("a policy list given as one name", "policies: [FirstFit, MaxQ]",
                  "policies: FirstFit", "policies"),
    window_search("a section given as a number", "request: {n: 2, volume: 100, budget: 500}",
                  "request: 5", "request"),
    window_search("a criterion mapping without its name", "MaxQ]", "{target: MaxQ}]",
                  "policy 1"),
    window_search("an unknown criterion parameter", "MaxQ]",
                  "{name: MultipleBest, goal: MaxQ}]", "goal"),
    window_search("a request wider than the environment", "n: 2", "n: 11", "request.n"),
    window_search("a minimum performance no node has", "budget: 500}",
                  "budget: 500, min_performance: 11}", "request.min_performance"),
    window_search("a budget below the cheapest window", "budget: 500", "budget: 10",
                  "request.budget"),
    window_search("a task longer than the horizon", "volume: 100, budget: 500",
                  "volume: 1e4, budget: 1e6", "request.volume"),
    window_search("an unknown FirstFit reading", "policies:", "first_fit: first\npolicies:",
                  "first_fit"),
    window_search("an unknown FirstFit reading on a policy", "MaxQ]",
                  "{name: MultipleBest, first_fit: last}]", "first_fit"),
    window_search("MultipleBest over MinCarbon without a power model", "MaxQ]",
                  "{name: MultipleBest, target: MinCarbon}]",
                  "policy MultipleBest needs a power model"),
    # Kind jobflow.
    job_flow("a negative time quantum", "queue_sizes:", "time_quantum: -1\nqueue_sizes:",
             "time_quantum"),
    job_flow("no queue sizes", "queue_sizes: [6]\n", "", "queue_sizes"),
    job_flow("a queue size of zero", "queue_sizes: [6]", "queue_sizes: [0]", "queue_sizes"),
    job_flow("a baseline that is not a policy", "policies:", "baseline: CoP\npolicies:",
             "baseline"),
    job_flow("a reversed job size range", "n: [1, 4]", "n: [4, 1]", "jobs.n"),
    job_flow("jobs all wider than the machine", "n: [1, 4]", "n: [9, 12]", "jobs.n"),
    job_flow("a job budget below the cheapest job", "n: [1, 4]}", "n: [1, 4], budget: 1}",
             "jobs.budget"),
    job_flow("poisson arrivals without a rate", "queue_sizes:",
             "arrivals: {model: poisson}\nqueue_sizes:", "arrivals"),
    job_flow("an unknown priority", "queue_sizes:", "priority: lifo\nqueue_sizes:",
             "priority"),
    # Energy: power models and signals (docs/energy.md).
    job_flow("busy power below idle power", "local_load:",
             "power: {idle_watts: 100, busy_watts: 50}, local_load:", "environment.power"),
    job_flow("a price signal without a power model", "local_load:",
             "electricity_price: {value: 0.2}, local_load:", "electricity_price"),
    job_flow("a signal given two ways", "local_load:",
             "power: {idle_watts: 1, busy_watts: 2}, carbon_intensity: {value: 1, profile: "
             "daily}, local_load:", "environment.carbon_intensity"),
    job_flow("profile hours that go back", "local_load:",
             "power: {idle_watts: 1, busy_watts: 2}, electricity_price: {profile: daily, "
             "steps: [[7, 0.3], [3, 0.1]]}, local_load:", "environment.electricity_price"),
    job_flow("a price CSV with a bad row", "local_load:",
             "power: {idle_watts: 1, busy_watts: 2}, electricity_price: {csv: price.csv}, "
             "local_load:", "price.csv line 3", files={"price.csv": "time,value\n0,0.1\n-5,0.2\n"}),
    job_flow("a price CSV repeated without a period", "local_load:",
             "power: {idle_watts: 1, busy_watts: 2}, electricity_price: {csv: price.csv, "
             "extend: repeat}, local_load:", "environment.electricity_price"),
    job_flow("a switch-off time without its watts", "local_load:",
             "power: {idle_watts: 10, busy_watts: 20, power_down: {idle_timeout: 60, "
             "switch_off_seconds: 30}}, local_load:", "environment.power.power_down"),
    job_flow("a node drawing more off than idle", "local_load:",
             "power: {idle_watts: 10, busy_watts: 20, power_down: {idle_timeout: 60, "
             "off_watts: 15}}, local_load:", "environment.power"),
    job_flow("MinCarbon without a power model", "[BFstart, BFfinish]", "[BFstart, MinCarbon]",
             "MinCarbon"),
    job_flow("a negative slack", "[BFstart, BFfinish]",
             "[BFstart, {name: MinEnergy, slack: -5}]", "slack"),
    job_flow("CoP weighing carbon without a power model", "[BFstart, BFfinish]",
             "[BFstart, {name: CoP, carbon_weight: 1000}]", "policy CoP needs a power model"),
    job_flow("a negative cost weight", "[BFstart, BFfinish]",
             "[BFstart, {name: PAST, price_weight: -1}]", "price_weight"),
    job_flow("a power cap without a power model", "local_load:",
             "power_cap: {value: 900}, local_load:", "power_cap"),
    job_flow("a power cap that is not a signal", "local_load:",
             "power: {idle_watts: 1, busy_watts: 2}, power_cap: lots, local_load:",
             "environment.power_cap"),
    job_flow("a negative power cap", "local_load:",
             "power: {idle_watts: 1, busy_watts: 2}, power_cap: {value: -5}, local_load:",
             "environment.power_cap"),
    job_flow("a power cap below every job's draw", "local_load:",
             "power: {idle_watts: 1, busy_watts: 200}, power_cap: {value: 150}, local_load:",
             "environment.power_cap"),
    scenario("jobflow", "a power cap with jobs overrunning their windows",
             edited(CAPPED_FLOW, "jobs: {n: [1, 4]}",
                    "jobs: {n: [1, 4], runtime_factor: {low: 1, high: 1.5}}"),
             "environment.power_cap"),
    scenario("jobflow", "a power cap with faults", CAPPED_FLOW + "faults: {failures: "
             "{rate: 0.001, distribution: exponential, repair_mean: 50}}\n",
             "environment.power_cap"),
    scenario("jobflow", "a power cap with a plugin scheduler", CAPPED_FLOW
             + "scheduler: own_planner:Planner\n", "environment.power_cap", files={
                 "own_planner.py": "from gridsim.scheduling.backfilling import "
                 "ConservativeBackfilling as Planner\n"}),
    window_search("a power cap on a window search", "horizon: 300}",
                  "horizon: 300, power: {idle_watts: 1, busy_watts: 2}, power_cap: {value: 9}}",
                  "environment.power_cap"),
    # Kind batch.
    scenario("batch", "an unknown policy", edited(BATCH, "{name: AMP}", "{name: AMPP}"),
             "policies.1.name"),
    scenario("batch", "a reversed slot count", BATCH + "slots: {count: [150, 120]}\n",
             "slots"),
    scenario("batch", "an unknown goal", BATCH + "goals: [speed]\n", "goals.0"),
    scenario("batch", "a price cap below every slot price",
             BATCH + "jobs: {price_markup: [0.5, 0.6]}\n", "policies.0"),
    scenario("batch", "an unknown reading of the job length",
             BATCH + "jobs: {length: weight}\n", "jobs.length"),
    scenario("batch", "an unknown reading of the totals", BATCH + "totals: sum\n", "totals"),
    scenario("batch", "jobs wider than every slot list", BATCH + "jobs: {nodes: [200, 300]}\n",
             "jobs.nodes"),
    # Kind cloud.
    scenario("cloud", "no providers", CLOUD[: CLOUD.index("providers:")] + "providers: []\n",
             "providers"),
    scenario("cloud", "a capacity that does not start at 0",
             edited(CLOUD, "capacity: [{time_s: 0, vms: 40}]",
                    "capacity: [{time_s: 60, vms: 40}]"), "providers.0.capacity"),
    scenario("cloud", "providers that never accept a VM",
             re.sub(r"vms: \d+\}", "vms: 0}", CLOUD), "providers"),
    scenario("cloud", "a factory interval of a nanosecond",
             edited(CLOUD, "factory_interval_s: 60", "factory_interval_s: 1e-9"),
             "framework.factory_interval_s"),
    scenario("cloud", "negative samples",
             edited(CLOUD, "total_samples: 20000000", "total_samples: -5"),
             "application.total_samples"),
    scenario("cloud", "a bad value swept into one provider",
             CLOUD + "sweep: {providers.0.vm_failure_rate_per_h: [0.1, -1]}\n",
             "sweep point providers.0.vm_failure_rate_per_h=-1"),
    # Kind swf_replay.
    scenario("swf_replay", "power on some node classes only", SWF_REPLAY + "platform: "
             "{node_classes: [{count: 4, power: {idle_watts: 1, busy_watts: 2}}, {count: 4}]}\n",
             "platform: power", files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "power without the nodes of each job", SWF_REPLAY + "record_nodes: "
             "false\nplatform: {power: {idle_watts: 1, busy_watts: 2}}\n", "record_nodes",
             files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "a power cap without a power model",
             SWF_REPLAY + "platform: {power_cap: {value: 500}}\n", "power_cap",
             files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "a power cap with jobs running past their estimate",
             edited(SWF_REPLAY, "{path: log.swf}", "{path: log.swf, mapping: {on_overrun: run}}")
             + "platform: {power: {idle_watts: 1, busy_watts: 2}, power_cap: {value: 9}}\n",
             "platform.power_cap", files={"log.swf": log_with(
                 "1 10 -1 100 2 -1 -1 2 50 -1 1 1 1 -1 -1 -1 -1 -1\n", replace=0)}),
    scenario("swf_replay", "a power cap below every job's draw on nodes of different "
             "performance", SWF_REPLAY + "platform: {power: {idle_watts: 1, busy_watts: 2}, "
             "power_cap: {value: 1}, node_classes: [{count: 4}, {count: 4, performance: 2}]}\n",
             "platform.power_cap", files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "a power cap below every job's draw", SWF_REPLAY
             + "platform: {power: {idle_watts: 1, busy_watts: 2}, power_cap: {value: 1}}\n",
             "platform.power_cap", files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "a log that does not exist", SWF_REPLAY, "workload.path"),
    scenario("swf_replay", "a log path that is a folder",
             edited(SWF_REPLAY, "path: log.swf", "path: results"), "workload.path"),
    scenario("swf_replay", "a log path that is a FIFO",
             edited(SWF_REPLAY, "path: log.swf", "path: pipe"), "pipe is a FIFO",
             files={"pipe": FIFO}),
    scenario("swf_replay", "a scheduler twice",
             edited(SWF_REPLAY, "[fcfs, easy]", "[fcfs, fcfs]"), "schedulers",
             files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "an unknown scheduler",
             edited(SWF_REPLAY, "[fcfs, easy]", "[fcfs, sjf]"), "schedulers.1",
             files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "an empty node class", SWF_REPLAY + "platform: {node_classes: "
             "[{count: 0}]}\n", "platform.node_classes.0.count", files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "memory on some node classes only", SWF_REPLAY + "platform: "
             "{node_classes: [{count: 4, memory_mb: 1024}, {count: 4}]}\n",
             "platform.node_classes", files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "GPUs asked of nodes without any", SWF_REPLAY + "platform: "
             "{node_classes: [{count: 8, cores: 2}], processors_as: gpus}\n",
             "platform.node_classes", files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "more cores per GPU than a GPU node has", SWF_REPLAY + "platform: "
             "{node_classes: [{count: 2, gpus: 1}, {count: 6, performance: 2}], "
             "processors_as: gpus, cores_per_gpu: 2}\n", "platform.node_classes",
             files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "GPU tasks of a log of processors", SWF_REPLAY + "platform: "
             "{node_classes: [{count: 2, gpus: 4}], gpus_per_task: 4}\n", "platform",
             files={"log.swf": GOOD_LOG}),
    scenario("swf_replay", "GPU tasks larger than every node", SWF_REPLAY + "platform: "
             "{node_classes: [{count: 8, gpus: 2}], processors_as: gpus, gpus_per_task: 4}\n",
             "platform.gpus_per_task", files={"log.swf": GOOD_LOG}),
    # SWF logs, read before running.
    swf_log("a line with 6 fields", log_with("5 0 10 100 4 -1"), "log.swf, line 3"),
    swf_log("text in a numeric field", log_with(JOB_LINES[1].replace(" 50 ", " fifty ")),
            "log.swf, line 3"),
    swf_log("a NaN run time", log_with(JOB_LINES[1].replace(" 50 ", " nan ")),
            "log.swf, line 3"),
    swf_log("a truncated gzip file", gzip.compress(GOOD_LOG.encode())[:30], "log.swf.gz",
            name="log.swf.gz"),
    swf_log("an empty log", "", "log.swf"),
    swf_log("only comments", LOG_HEADER, "log.swf"),
    swf_log("every run time negative",
            LOG_HEADER + "".join(line.replace(" -1 100 ", " -1 -100 ") for line in JOB_LINES[:1]),
            "log.swf"),
    swf_log("every job wider than the machine", LOG_HEADER + JOB_LINES[3].replace(" 8 ", " 9 "),
            "log.swf"),
    swf_log("a header number that is text", "; MaxProcs: many\n" + "".join(JOB_LINES),
            "MaxProcs"),
    swf_log("no MaxProcs header line", "".join(JOB_LINES), "log.swf gives no machine size"),
    swf_log("MaxProcs: 0", "; MaxProcs: 0\n" + "".join(JOB_LINES),
            "log.swf gives no machine size"),
    swf_log("a submit time of 2**70", log_with(JOB_LINES[1].replace(" 20 ", f" {2**70} ", 1)),
            "log.swf, line 3: field 2 (submit_time)"),
    swf_log("a bzip2 file named .swf.gz", bz2.compress(GOOD_LOG.encode()),
            "log.swf.gz: compressed with bzip2", name="log.swf.gz"),
    swf_log("an xz log", lzma.compress(GOOD_LOG.encode()), "log.swf.xz: compressed with xz",
            name="log.swf.xz"),
    swf_log("a binary file", bytes(range(256)) * 4, "log.swf: a binary file"),
    # Slurm accounting dumps (sacct --parsable2), read before running.
    slurm_dump("a dump without the State column", SACCT_HEADER.replace("State|", "") + "".join(
        line.replace("COMPLETED|", "") for line in SACCT_JOBS), "log.txt, line 1: missing "
        "column State"),
    slurm_dump("a submit time that is no time", sacct_with("2024-03-04T08:10:00", "yesterday"),
               "log.txt, line 3: Submit is not a time"),
    slurm_dump("a time limit of no known form", sacct_with("|01:00:00|", "|1 hour|"),
               "log.txt, line 3: Timelimit is not a duration"),
    slurm_dump("a TRES list that is not one", sacct_with("cpu=8,mem=16G", "cpu=8,mem=lots"),
               "log.txt, line 3: AllocTRES is not a TRES list"),
    slurm_dump("a line with a field too many", sacct_with("|8|", "|8|8|"),
               "log.txt, line 3: expected 8 fields (the header's), found 9"),
    slurm_dump("only the header line", SACCT_HEADER, "log.txt: no job to replay"),
    slurm_dump("no machine size in the dump or the scenario", "".join([SACCT_HEADER, *SACCT_JOBS]),
               "log.txt gives no machine size", scenario=SWF_REPLAY.replace("log.swf", "log.txt")),
    slurm_dump("an unknown time zone", "".join([SACCT_HEADER, *SACCT_JOBS]),
               "workload.time_zone", scenario=SACCT_REPLAY.replace("path:", "time_zone: Mars/Base, "
                                                                   "path:")),
    # Batsim JSON workloads, read before running.
    batsim_workload("a job without res", lambda d: d["jobs"][1].pop("res"),
                    "log.json, line 11: a job without res"),
    batsim_workload("a job of a parallel profile", lambda d: d["profiles"]["p"].update(
        type="parallel_homogeneous"), "profile 'p' is of type 'parallel_homogeneous'"),
    batsim_workload("a profile no job names", lambda d: d["jobs"][0].update(profile="q"),
                    "log.json, line 4: profile 'q' is not among the workload's profiles"),
    batsim_workload("nb_res zero", lambda d: d.update(nb_res=0),
                    "log.json, line 2: nb_res should be a positive integer"),
    Case("Batsim workload", "a truncated file", ("run", "s.yaml", "-q", "-j", "1"),
         "log.json, line 14: the file ends inside a JSON value",
         {"s.yaml": SWF_REPLAY.replace("log.swf", "log.json"),
          "log.json": json.dumps(BATSIM_WORKLOAD, indent=1)[:150]}),
    # Workload commands and model sections.
    workload_command("convert to a name of no format", "the name says no output format", "convert",
                     "log.swf", "out.csv", files={"log.swf": GOOD_LOG}, absent=("out.csv",)),
    workload_command("convert to Batsim without a machine size", "no machine size, which Batsim's "
                     "nb_res needs", "convert", "log.swf", "out.json",
                     files={"log.swf": "".join(JOB_LINES)}, absent=("out.json",)),
    workload_command("convert a dump with a bad line", "log.txt, line 3: Submit is not a time",
                     "convert", "log.txt", "out.parquet",
                     files={"log.txt": sacct_with("2024-03-04T08:10:00", "noon")},
                     absent=("out.parquet",)),
    workload_command("describe a Parquet file of other columns", "table.parquet: a Parquet jobs "
                     "table needs columns ['job_id', 'submit_time', 'run_time']", "workload",
                     "describe", "table.parquet", files={"table.parquet": parquet_of({"a": [1]})}),
    workload_command("describe a file that is no workload", "not a workload format gridsim "
                     "recognises", "workload", "describe", "notes.txt",
                     files={"notes.txt": "Dear admin,\nthe log you asked for.\n"}),
    workload_command("generate a load of zero", "--load", "workload", "generate", "lublin",
                     "--load", "0", "-o", "flow.swf", absent=("flow.swf",)),
    workload_command("generate into a folder", "--out results: is a folder", "workload",
                     "generate", "lublin", "-o", "results"),
    workload_command("generate for a machine the model's sizes cannot fit",
                     "--machine-processors: the model's batch_and_interactive sizes need",
                     "workload", "generate", "lublin", "--machine-processors", "12", "-o",
                     "flow.swf", absent=("flow.swf",)),
    scenario("workload commands", "a model's flow of no jobs",
             LUBLIN_REPLAY.replace("jobs: 50", "jobs: 0"), "workload.jobs"),
    scenario("workload commands", "a model's flow with a path",
             LUBLIN_REPLAY.replace("jobs: 50", "jobs: 50, path: log.swf"), "workload.path"),
    scenario("workload commands", "estimates the model cannot give",
             SWF_REPLAY.replace("{path: log.swf}", "{path: log.swf, estimates: {model: tsafrir, "
                                "largest_estimate: 3600}}"), "workload.estimates: the model's "
             "estimates cannot cover", files={"log.swf": LOG_HEADER + "".join(
                 f"{i} {i} -1 3000 1 -1 -1 1 3600 -1 1 1 1 -1 -1 -1 -1 -1\n"
                 for i in range(1, 40))}),
    job_flow("arrivals of a workload model without one", "queue_sizes:",
             "arrivals: {model: workload}\nqueue_sizes:", "arrivals"),
    job_flow("a workload model's machine larger than the environment", "queue_sizes:",
             "workload: {model: lublin, machine_processors: 128}\nqueue_sizes:",
             "workload.machine_processors"),
    job_flow("a workload model's machine too small for its sizes", "queue_sizes:",
             "workload: {model: lublin, machine_processors: 12}\nqueue_sizes:",
             "workload: machine_processors: the model's batch_and_interactive sizes need "
             "at least 32"),
    # Command-line options.
    option("an unknown command", "rn", "rn"),
    option("a misspelt option", "--seeds", "run", "--seeds", "3"),
    option("replications zero", "--replications", "run", "-r", "0"),
    option("a reversed replication range", "--replications", "run", "-r", "5:2"),
    option("a shard beyond the count", "--shard", "run", "--shard", "3/2"),
    option("a negative seed", "--seed", "run", "-s", "-1"),
    option("zero workers", "--jobs", "run", "-j", "0"),
    option("a malformed cluster address", "--cluster", "run", "s.yaml", "--cluster", "bogus",
           "-q", files={"s.yaml": WINDOW_SEARCH.replace("tiny", "other")}),
    option("an empty results folder name", "--out", "run", "s.yaml", "-q", "-o", "",
           files={"s.yaml": WINDOW_SEARCH.replace("tiny", "other")}),
    option("a results folder that is a file", "s.yaml", "run", "s.yaml", "-q", "-o", "s.yaml",
           files={"s.yaml": WINDOW_SEARCH}),
    option("a results folder of another experiment", "results/tiny", "run", "s.yaml", "-q",
           "-o", "results/tiny",
           files={"s.yaml": WINDOW_SEARCH.replace("n: 2,", "n: 3,")}),
    option("--log on a scenario that is not a replay", "--log", "run", "s.yaml", "--log",
           "log.swf", "-q", files={"s.yaml": WINDOW_SEARCH, "log.swf": GOOD_LOG}),
    option("a device as --log", "/dev/null is a character device", "run", "s.yaml", "--log",
           "/dev/null", "-q", files={"s.yaml": SWF_REPLAY}),
    option("a missing scenario argument", "SCENARIO", "validate"),
    option("an unknown image format", "--output", "gantt", "results/flow", "--policy",
           "BFstart", "-o", "chart.xyz"),
    option("a Gantt window that ends before it starts", "--from 100 --to 50", "gantt",
           "results/flow", "--policy", "BFstart", "--from", "100", "--to", "50", "-o",
           "chart.png"),
    option("a policy no run has", "policy", "gantt", "results/flow", "--policy", "CoP",
           "-o", "chart.png"),
    option("a replication no run has", "replication", "export", "results/flow", "--format",
           "swf", "--policy", "BFstart", "--replication", "9", "-o", "out.swf"),
    option("an explorer page not named .html", "--output chart.png", "explore",
           "results/flow", "--policy", "BFstart", "-o", "chart.png"),
    option("an explorer of a kind without jobs", "explore reads the results of jobflow and "
           "swf_replay scenarios, not window_search", "explore", "results/tiny", "-o", "x.html"),
    option("an explorer of a policy no run has", "policy", "explore", "results/flow",
           "--policy", "CoP", "-o", "x.html"),
    option("an explorer coloured by carbon of a run without a power model",
           "--colour-by carbon_kg: this run has no carbon_kg column", "explore",
           "results/flow", "--policy", "BFstart", "--colour-by", "carbon_kg", "-o", "x.html"),
    option("an unknown export format", "--format", "export", "results/flow", "--format", "xml",
           "--policy", "BFstart", "-o", "out.xml"),
    option("export of a window search", "results/tiny", "export", "results/tiny", "--format",
           "swf", "--policy", "MaxQ", "-o", "out.swf"),
    option("an SWF file name for Batsim's CSV", "--output", "export", "results/flow",
           "--format", "batsim", "--policy", "BFstart", "-o", "out.swf.gz"),
    option("a CSV file name for SWF", "--output", "export", "results/flow", "--format", "swf",
           "--policy", "BFstart", "-o", "out.CSV"),
    option("a non-positive time unit", "--time-unit", "export", "results/flow", "--format",
           "swf", "--policy", "BFstart", "--time-unit", "0", "-o", "out.swf"),
    option("a report of a folder that does not exist", "nowhere", "report", "nowhere"),
    option("a report of a folder that is not results", "empty", "report", "empty", "-o", "r",
           files={"empty/note.txt": ""}),
    option("a damaged metadata.json", "results/tiny/metadata.json", "report", "results/tiny",
           "-o", "r", files={"results/tiny/metadata.json": "{"}),
    option("status of a folder that is not results", "empty", "status", "empty",
           files={"empty/note.txt": ""}),
    option("merging a folder into itself", "results/tiny", "merge", "results/tiny",
           "results/tiny", "-o", "merged"),
    option("merging two experiments", "results/tiny", "merge", "results/tiny", "results/flow",
           "-o", "merged"),
    option("an unreadable replication count", "--replications", "run", "-r", "abc"),
    option("a billion replications", "--replications", "run", "-r", "1000000000"),
    option("a range of a billion replications", "--replications", "run", "-r",
           "5:1000000005"),
    option("a shard numbered 0", "--shard", "run", "--shard", "0/2"),
    option("a local cluster of no workers", "--cluster", "run", "s.yaml", "--cluster",
           "local:0", "-q", files={"s.yaml": WINDOW_SEARCH.replace("tiny", "other")}),
    option("a results folder holding other files", "notes", "run", "s.yaml", "-q", "-o",
           "notes", files={"s.yaml": WINDOW_SEARCH.replace("tiny", "other"),
                           "notes/todo.txt": "keep me\n"}),
    option("a scenario that is a folder", "results", "validate", "results"),
    option("init of a scenario not bundled", "window-serch", "init", "window-serch"),
    option("init over a file already there", "quickstart.yaml", "init", "quickstart",
           files={"quickstart.yaml": "mine\n"}),
    option("an extra argument", "extra", "policies", "extra"),
    option("a Gantt window to infinity", "--to", *GANTT, "--to", "inf"),
    option("a Gantt window from NaN", "--from", *GANTT, "--from", "nan"),
    option("a chart in a folder that does not exist", "nodir/chart.png", "gantt",
           "results/flow", "--policy", "BFstart", "-o", "nodir/chart.png"),
    option("an export onto a folder", "exports", "export", "results/flow", "--format", "swf",
           "--policy", "BFstart", "-o", "exports", files={"exports/keep.txt": ""}),
    option("an export over a results folder's metadata.json", "--output", "export",
           "results/flow", "--format", "swf", "--policy", "BFstart", "-o",
           "results/flow/metadata.json"),
    option("a report written into a results folder", "--out", "report", "results/tiny", "-o",
           "results/tiny/report"),
    option("a NaN time unit", "--time-unit", *EXPORT, "--time-unit", "nan"),
    option("a time unit that overflows the SWF dates", "--time-unit", *EXPORT, "--time-unit",
           "1e12"),
    option("a sweep point no run has", "--point", *EXPORT, "--point", "3"),
    option("a report folder that is a file", "--out", "report", "results/flow", "-o",
           "s.yaml", files={"s.yaml": WINDOW_SEARCH}),
    option("status of a file", "s.yaml", "status", "s.yaml", files={"s.yaml": WINDOW_SEARCH}),
    option("merging into a file", "s.yaml", "merge", "results/tiny", "-o", "s.yaml",
           files={"s.yaml": WINDOW_SEARCH}),
    option("merging into a folder inside a results folder", "results/tiny/sub: is inside",
           "merge", "results/tiny", "-o", "results/tiny/sub"),
    option("a run into a folder inside a results folder", "results/flow/sub: is inside", "run",
           "s.yaml", "-q", "-o", "results/flow/sub",
           files={"s.yaml": WINDOW_SEARCH.replace("tiny", "other")}),
    option("an export to a full disk", "/dev/full: cannot write it", *EXPORT[:-1], "/dev/full"),
    Case("command line", "a file size limit (ulimit -f 1) below the first file written",
         ("run", "s.yaml", "-q", "-j", "1", "-o", "out"), "out/metadata.json: cannot write it",
         {"s.yaml": WINDOW_SEARCH.replace("tiny", "other")}, file_size_limit=1024),
    option("reproduce without a figure", "gridsim reproduce", "reproduce"),
    option("an unknown figure", "nofig", "reproduce", "nofig"),
    option("--set without a value", "--set foo", "reproduce", "003-fig1", "--set", "foo"),
    option("--set of text where a number goes", "--set environment.nodes=abc", "reproduce",
           "003-fig1", "--quick", "--set", "environment.nodes=abc"),
    option("--set of an unknown field", "--set nosuch.field=1", "reproduce", "003-fig1",
           "--quick", "--set", "nosuch.field=1"),
    option("--set into a number", "--set environment.nodes.x=1", "reproduce", "003-fig1",
           "--quick", "--set", "environment.nodes.x=1"),
    option("--set of a field the scenario lacks", "--set request.nn=1", "validate", "s.yaml",
           "--set", "request.nn=1", files={"s.yaml": WINDOW_SEARCH}),
    option("--set that makes a value invalid", "--set environment.nodes=0", "run", "s.yaml",
           "-q", "--set", "environment.nodes=0", files={"s.yaml": WINDOW_SEARCH}),
    option("--set of a path the scenario sweeps", "--set request.n=4", "validate", "s.yaml",
           "--set", "request.n=4",
           files={"s.yaml": WINDOW_SEARCH + "sweep:\n  request.n: [2, 3]\n"}),
    option("--set of the kind", "--set kind=batch", "validate", "s.yaml", "--set",
           "kind=batch", files={"s.yaml": WINDOW_SEARCH}),
    option("reproduce into a folder of other files", "out/window-search", "reproduce",
           "003-fig1", "-r", "2", "-q", "-o", "out",
           files={"out/window-search/notes.txt": "keep me\n"}),
    option("reproduce with one replication", "--replications", "reproduce", "003-fig1", "-r",
           "1"),
    # Results folders damaged, or their metadata.json edited by hand.
    results_folder("a jobs chunk cut short", "results/flow/jobs/point=0/rep-",
                   FLOW_CHUNK.format(table="jobs"), cut_short, *EXPORT),
    results_folder("an empty tasks chunk", "results/flow/tasks/point=0/rep-",
                   FLOW_CHUNK.format(table="tasks"), emptied, *GANTT),
    results_folder("a runs chunk cut short (report)", "results/flow/runs/point=0/rep-",
                   FLOW_CHUNK.format(table="runs"), cut_short, "report", "results/flow", "-o",
                   "r"),
    Case("results folder", "a runs table removed (report)", ("report", "results/tiny", "-o",
         "r"), "results/tiny/runs: missing", removed=("results/tiny/runs",)),
    Case("results folder", "a runs table that is a file (report)", ("report", "results/tiny",
         "-o", "r"), "results/tiny/runs: not a folder", {"results/tiny/runs": ""},
         removed=("results/tiny/runs",)),
    results_folder("a chunk cut short (merge)", "results/flow/jobs/point=0/rep-",
                   FLOW_CHUNK.format(table="jobs"), cut_short, "merge", "results/flow", "-o",
                   "merged"),
    results_folder("metadata.json without a kind", "results/flow/metadata.json: kind",
                   FLOW_METADATA, json_edit(without_key("kind")), "status", "results/flow"),
    results_folder("an unknown kind", "results/flow/metadata.json: kind", FLOW_METADATA,
                   json_edit(with_key("kind", "bogus")), *GANTT),
    results_folder("a seed written as text", "results/tiny/metadata.json: seed",
                   TINY_METADATA, json_edit(with_key("seed", "five")), "report",
                   "results/tiny", "-o", "r"),
    results_folder("points renumbered", "results/flow/metadata.json: points.0.point",
                   FLOW_METADATA, json_edit(with_key("points", [{"point": 3}])), *EXPORT),
    results_folder("a reversed range of cells done", "results/flow/metadata.json: done.0",
                   FLOW_METADATA, json_edit(with_key("done", {"0": [[1, 0]]})), "status",
                   "results/flow"),
    results_folder("a history that is not a list", "results/tiny/metadata.json: history",
                   TINY_METADATA, json_edit(with_key("history", {})), "merge", "results/tiny",
                   "-o", "merged"),
    results_folder("a resolved scenario edited",
                   "results/flow/metadata.json: scenario_resolved.environment.nodes",
                   FLOW_METADATA, json_edit(lambda m: {**m, "scenario_resolved": {
                       **m["scenario_resolved"], "environment": {
                           **m["scenario_resolved"]["environment"], "nodes": 99}}}), *EXPORT),
    results_folder("the identity edited", "results/tiny/metadata.json: identity",
                   TINY_METADATA, json_edit(lambda m: {**m, "identity": {**m["identity"],
                                                                         "axes": ["x"]}}),
                   "report", "results/tiny", "-o", "r"),
    results_folder("the scenario renamed", "results/flow/metadata.json: scenario",
                   FLOW_METADATA, json_edit(with_key("scenario", "renamed")), "status",
                   "results/flow"),
    results_folder("metadata.json a list", "results/tiny/metadata.json", TINY_METADATA,
                   json_edit(lambda m: [m]), "report", "results/tiny", "-o", "r"),
    results_folder("a newer store format", "results/flow/metadata.json: store_format",
                   FLOW_METADATA, json_edit(with_key("store_format", 7)), *GANTT),
    results_folder("a jobs table of a newer gridsim", "results/flow/metadata.json: jobs_schema",
                   FLOW_METADATA, json_edit(with_key("jobs_schema", 9)), *GANTT),
    results_folder("a resumed run on an edited metadata.json",
                   "results/flow/metadata.json: kind", FLOW_METADATA,
                   json_edit(without_key("kind")), "run", "s.yaml", "-q", "-j", "1", "-o",
                   "results/flow", files={"s.yaml": JOB_FLOW}),
    # Plugin criteria and schedulers that cannot be used.
    plugin("a module that does not exist", "nosuchmodule:Crit", "nosuchmodule", None),
    plugin("a module whose import fails", "failing_import:Crit", "failing_import",
           "import a_dependency_not_installed\n"),
    plugin("a module with a syntax error", "syntax_error:Crit", "syntax_error", "x = (\n"),
    plugin("a module that exits on import", "exits_on_import:Crit", "exits_on_import",
           "import sys\nsys.exit(3)\n"),
    plugin("a class that is not a criterion", "not_a_criterion:Crit", "not_a_criterion",
           "class Crit:\n    pass\n"),
    plugin("a class the module lacks", "lacks_class:Nope", "lacks_class",
           "class Crit:\n    pass\n", reference="lacks_class:Nope"),
    plugin("a reference without a class", "policy 1", "no_class", "", reference="no_class:"),
    scenario("plugin", "a scheduler whose import fails",
             edited(JOB_FLOW, "policies:", "scheduler: failing_scheduler:Planner\npolicies:"),
             "scheduler", files={"failing_scheduler.py": "raise RuntimeError('boom')\n"}),
    # Sweep sections.
    sweep("a sweep that is a list", "sweep: [1, 2]", "sweep"),
    sweep("a swept value that is not a list", "sweep: {request.n: 5}", "request.n"),
    sweep("a sweep into a number", "sweep: {request.n.x: [1, 2]}", "request.n.x"),
    sweep("a value swept twice", "sweep: {request.n: [2, 2]}", "request.n=2"),
    sweep("a swept value of the wrong type", "sweep: {request.n: [2, abc]}", "request.n"),
    sweep("a sweep of a billion points", "sweep: {request.volume: [" + ", ".join(
        map(str, range(100, 1100))) + "], request.budget: [" + ", ".join(
        map(str, range(500, 1500))) + "], environment.horizon: [" + ", ".join(
        map(str, range(300, 1300))) + "]}", "sweep"),
    sweep("a swept seed", "sweep: {seed: [1, 2]}", "seed"),
    sweep("a swept point that cannot run", "sweep: {request.n: [2, 20]}", "request.n"),
    sweep("a swept policy that is unknown", "sweep: {policies.1: [MaxQ, Bogus]}", "Bogus"),
]
# fmt: on


def as_code(text: str) -> str:
    """``text`` as inline code in a Markdown table cell (pipes escaped; double backticks
    around text that holds one)."""
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def make_results(folder: Path) -> None:
    """The results folders every case starts with (two small real runs)."""
    with contextlib.chdir(folder):
        for name, text in (("tiny", WINDOW_SEARCH), ("flow", JOB_FLOW)):
            Path(f"{name}.yaml").write_text(text)
            result = CliRunner().invoke(main, ["run", f"{name}.yaml", "-q", "-j", "1", "-o",
                                               f"results/{name}"])  # fmt: skip
            assert result.exit_code == 0, result.output
            Path(f"{name}.yaml").unlink()


def checksums(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder``, by relative path."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str


def prepare(case: Case, results: Path, folder: Path) -> None:
    """Put a fresh copy of ``results`` and the case's files in ``folder`` (after removing
    what the case removes), then make the case's changes."""
    shutil.copytree(results, folder / "results")
    for name in case.removed:
        shutil.rmtree(folder / name)
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is FIFO:
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            assert isinstance(content, str)
            path.write_text(content)
    for pattern, change in case.changes:
        path = sorted(folder.glob(pattern))[0]
        path.write_bytes(change(path.read_bytes()))


def run_case(case: Case, folder: Path) -> Outcome:
    """Run the case's command in ``folder`` (after :func:`prepare`)."""
    if case.file_size_limit is not None:
        return _run_limited(case.args, folder, case.file_size_limit)
    with contextlib.chdir(folder):
        result = CliRunner().invoke(main, list(case.args))
    return Outcome(result.exit_code, result.stdout, result.stderr)


def _run_limited(args: tuple[str, ...], folder: Path, limit: int) -> Outcome:
    """``gridsim ARGS`` in a process whose files cannot grow beyond ``limit`` bytes."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-c", "from gridsim.cli import main; main()", *args]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300,
                          preexec_fn=limited, check=False)  # fmt: skip
    return Outcome(done.returncode, done.stdout, done.stderr)

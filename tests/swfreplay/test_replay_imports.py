"""`gridsim run` of a log replay imports only what a replay uses (start-up, docs/swf.md): no
pandas at all, its tables are built and written as Arrow tables."""

import subprocess
import sys

import pytest

import gridsim.experiments.swf_replay as kind
from gridsim.api import run
from gridsim.workloads.swf import bundled_swf

#: Never needed by a replay on the log's machine that writes its results.
UNUSED = (
    "pandas", "matplotlib", "dask", "distributed", "pyarrow.dataset", "bokeh", "scipy", "nbformat",
    "simpy", "gridsim.selection.criteria", "gridsim.analysis.export", "gridsim.experiments.batch",
    "gridsim.experiments.cloud", "gridsim.experiments.jobflow", "gridsim.experiments.window_search",
    "gridsim.cli_workload", "gridsim.workloads.convert", "gridsim.workloads.swf_writer",
    "gridsim.workloads.batsim", "gridsim.workloads.slurm", "gridsim.workloads.jobs_table", "tqdm",
)  # fmt: skip
#: What the ``gridsim`` command's start (``--help``, ``--version``, shell completion, and every
#: command before its own imports) never needs.
NOT_AT_START = ("numpy", "pandas", "pyarrow", "matplotlib", "gridsim.workloads.lublin")


def test_the_command_starts_without_numpy_pandas_or_the_workload_commands():
    code = "import sys, gridsim.cli\nprint(' '.join(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)  # fmt: skip
    loaded = set(result.stdout.split())
    assert "gridsim.cli" in loaded
    assert sorted(name for name in NOT_AT_START if name in loaded) == []


SWEEP = """
name: sweep
kind: swf_replay
workload: {max_jobs: 150}
schedulers: [easy, conservative]
sweep: {bounded_slowdown_threshold: [10.0, 60.0]}
"""


@pytest.mark.parametrize("case", ["three schedulers", "sweep, two replications"])
def test_a_replay_run_imports_no_pandas_plotting_cluster_or_other_kinds(case, tmp_path):
    scenario = tmp_path / "sweep.yaml"
    scenario.write_text(SWEEP)
    arguments = {
        "three schedulers": ["swf-replay", "-r", "1", "--set", "workload.max_jobs=200"],
        "sweep, two replications": [str(scenario), "-r", "2", "-j", "1"],
    }[case]
    code = (
        "import sys\n"
        "from gridsim.cli import main\n"
        "try:\n"
        f"    main(['run', *{arguments!r}, '-q', '--log', {str(bundled_swf())!r},"
        f" '-o', {str(tmp_path / 'out')!r}])\n"
        "except SystemExit as stop:\n"
        "    assert not stop.code, stop.code\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)  # fmt: skip
    loaded = set(result.stdout.strip().splitlines()[-1].split())
    assert "gridsim.experiments.swf_replay" in loaded and "pyarrow" in loaded
    assert (tmp_path / "out" / "summary.csv").is_file()
    assert (tmp_path / "out" / "paired.parquet").is_file()
    assert sorted(name for name in UNUSED if name in loaded) == []


#: Imported only once the first replay has run (its tables, the results' Parquet files).
AFTER_THE_FIRST_JOB = ("pandas", "pyarrow")


def test_the_first_job_is_replayed_before_pandas_or_pyarrow_is_imported(tmp_path):
    code = (
        "import sys\n"
        "import gridsim.sim.log_replay as replay\n"
        "def first(*args, **kwargs):\n"
        "    print(' '.join(sorted(sys.modules)))\n"
        "    raise SystemExit(0)\n"
        "replay.replay_log = first\n"
        "from gridsim.cli import main\n"
        f"main(['run', 'swf-replay', '-q', '-o', {str(tmp_path / 'out')!r}])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)  # fmt: skip
    loaded = set(result.stdout.split())
    assert {"gridsim.experiments.swf_replay", "gridsim.workloads.swf", "numpy"} <= loaded
    assert sorted(name for name in AFTER_THE_FIRST_JOB if name in loaded) == []


def test_the_run_reads_the_log_its_validation_read_only_once_more(monkeypatch):
    reads = []
    real = kind.workload_records

    def counted(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(kind, "workload_records", counted)
    scenario = {
        "name": "twice", "kind": "swf_replay", "seed": 1,
        "workload": {"path": str(bundled_swf()), "max_jobs": 300},
        "schedulers": ["fcfs", "easy"],
    }  # fmt: skip
    runs = run(scenario, replications=2, jobs=1).runs
    assert len(runs) == 4
    assert len(reads) == 2  # validation (served again to replication 0), replication 1

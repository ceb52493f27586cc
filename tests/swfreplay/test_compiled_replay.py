"""The compiled replay (gridsim.core) against the Python planners it was written from.

Built-in scheduler names replay through the C loop; the scheduler classes of
``gridsim.scheduling.log_schedulers`` run the Python loop. Both must give the same start times,
first reservations, node ids, counters, peak and instants, on random flows here and on the
three archive logs in the slow test. ``GRIDSIM_PURE_PYTHON=1`` forces the Python path, and
without the extension the Python path runs after one warning.
"""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.core import replay as core
from gridsim.core.optional import PURE_PYTHON_ENV
from gridsim.scheduling.log_schedulers import ALGORITHMS, SCHEDULERS
from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf

needs_compiled = pytest.mark.skipif(
    core.compiled() is None, reason="the compiled core is not built or is switched off"
)
FULL_LOG_DIR = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf"))


def random_flow(rng: np.random.Generator, count: int, machine: int) -> pd.DataFrame:
    """Arrivals in bursts (shared instants), sizes up to the machine, estimates on a coarse
    grid (series of identical jobs), run times at, below or far below the estimate."""
    gaps = rng.choice([0.0, 0.0, 1.0, 5.0, 30.0, 0.25], size=count)
    estimate = rng.choice([10.0, 60.0, 60.0, 300.0, 900.0, 3600.0, 7.5], size=count)
    fraction = rng.choice([1.0, 1.0, 0.5, 0.1, 0.999], size=count)
    return pd.DataFrame(
        {
            "job_id": np.arange(count),
            "submit_time": np.cumsum(gaps),
            "processors": rng.integers(1, machine + 1, size=count) // rng.choice([1, 4], count) + 1,
            "estimate": estimate,
            "duration": estimate * fraction,
        }
    ).assign(processors=lambda t: t.processors.clip(upper=machine))


def assert_same_replay(jobs, machine, algorithm, order, record_nodes=True):
    compiled = replay_log(jobs, machine, algorithm, completions_order=order,
                          record_nodes=record_nodes)  # fmt: skip
    python = replay_log(jobs, machine, SCHEDULERS[algorithm], completions_order=order,
                        record_nodes=record_nodes)  # fmt: skip
    np.testing.assert_array_equal(compiled.start_time, python.start_time)
    np.testing.assert_array_equal(compiled.first_reservation, python.first_reservation)
    assert compiled.nodes == python.nodes
    assert compiled.counters == python.counters
    assert (compiled.peak_processors, compiled.events) == (python.peak_processors, python.events)
    return compiled


@needs_compiled
@pytest.mark.parametrize("order", ["together", "separately"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_random_flows_replay_identically_compiled_and_in_python(algorithm, order):
    rng = np.random.default_rng(11)
    moved = 0
    for machine in (1, 4, 16, 64):
        jobs = random_flow(rng, 250, machine)
        replay = assert_same_replay(jobs, machine, algorithm, order)
        moved += replay.counters.get("compression_moves", 0)
    if algorithm == "conservative":
        assert moved > 100  # the flows do exercise compression


workloads = st.lists(
    st.tuples(st.integers(0, 40), st.integers(1, 6), st.integers(1, 30), st.floats(0.05, 1.0)),
    min_size=1,
    max_size=40,
)


@needs_compiled
@settings(max_examples=examples(60), deadline=None)
@given(workloads, st.sampled_from(ALGORITHMS), st.sampled_from(["together", "separately"]))
def test_small_random_workloads_replay_identically(rows, algorithm, order):
    jobs = pd.DataFrame(
        [(i, s, p, e, e * f) for i, (s, p, e, f) in enumerate(rows)],
        columns=["job_id", "submit_time", "processors", "estimate", "duration"],
    )
    assert_same_replay(jobs, 6, algorithm, order)


@needs_compiled
def test_progress_and_errors_are_the_same_on_both_paths():
    jobs = random_flow(np.random.default_rng(3), 200, 8)
    seen = {}
    for name, algorithm in (("compiled", "easy"), ("python", SCHEDULERS["easy"])):
        calls = []
        replay_log(jobs, 8, algorithm, on_progress=calls.append, progress_every=7)
        seen[name] = calls
    assert seen["compiled"] == seen["python"] and len(seen["python"]) > 10
    too_large = jobs.assign(processors=jobs.processors.where(jobs.index != 5, 9))
    messages = []
    for algorithm in ("conservative", SCHEDULERS["conservative"]):
        with pytest.raises(ValueError) as error:
            replay_log(too_large, 8, algorithm)
        messages.append(str(error.value))
    assert messages[0] == messages[1] == "job at position 5 needs 9 processors; the machine has 8"


def test_the_environment_switch_forces_the_python_planners(monkeypatch):
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    assert core.compiled() is None
    jobs = random_flow(np.random.default_rng(5), 100, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # forced off: no warning
        replay = replay_log(jobs, 4, "conservative")
    python = replay_log(jobs, 4, SCHEDULERS["conservative"])
    np.testing.assert_array_equal(replay.start_time, python.start_time)
    monkeypatch.setenv(PURE_PYTHON_ENV, "0")
    assert core.compiled() is core.compiled.module


def test_without_the_extension_replays_warn_once_and_run_in_python(monkeypatch):
    monkeypatch.delenv(PURE_PYTHON_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "gridsim.core._replay", None)  # import fails
    monkeypatch.setattr(core.compiled, "module", None)
    monkeypatch.setattr(core.compiled, "warned", False)
    jobs = random_flow(np.random.default_rng(7), 50, 4)
    with pytest.warns(RuntimeWarning, match="compiled planning core is not available"):
        replay = replay_log(jobs, 4, "easy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process
        replay_log(jobs, 4, "easy")
    python = replay_log(jobs, 4, SCHEDULERS["easy"])
    np.testing.assert_array_equal(replay.start_time, python.start_time)


def test_a_process_with_the_switch_set_never_loads_the_extension():
    code = (
        "import sys; from gridsim.sim.log_replay import replay_log;"
        "from gridsim.workloads.swf import bundled_swf, read_swf;"
        "replay_log(read_swf(bundled_swf()).jobs.iloc[:300], 100, 'conservative');"
        "print('gridsim.core._replay' in sys.modules)"
    )
    env = {**os.environ, PURE_PYTHON_ENV: "1"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True)  # fmt: skip
    assert result.stdout.strip() == "False"


@pytest.mark.slow
@needs_compiled
@pytest.mark.skipif(not FULL_LOG_DIR.is_dir(), reason="full PWA logs not available")
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize(
    "name",
    ["KTH-SP2-1996-2.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"],
)
def test_every_start_time_of_an_archive_log_is_the_same_compiled_and_in_python(name, algorithm):
    log = read_swf(FULL_LOG_DIR / name)
    assert_same_replay(log.jobs, log.machine_processors, algorithm, "together", record_nodes=False)


@pytest.mark.skipif(not os.environ.get("CI"), reason="only CI promises a C compiler")
def test_ci_builds_every_compiled_module():
    """Elsewhere a failed build only skips the compiled tests; on CI it is an error."""
    from gridsim.core import search
    from gridsim.core.optional import pure_python_forced

    if pure_python_forced():
        pytest.skip(f"{PURE_PYTHON_ENV} is set")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert core.compiled() is not None, "gridsim/core/_replay did not build"
        assert search.compiled() is not None, "gridsim/core/_search did not build"

"""The compiled window search (gridsim/core/_window.c, _search.c) against the Python path.

CoP, PAST, BFfinish and BFstart run their whole search compiled when a request has no
budget, and the Python search runs CoP's and PAST's exact steps and sigma bounds compiled
where a step has none. Single searches must choose the same window, and schedules must be
the same, job for job and bit for bit, as with ``GRIDSIM_PURE_PYTHON=1``: on random
heterogeneous flows (with and without budgets, so that compiled and Python searches mix)
under the three planners, and on a KTH-SP2 prefix; the slow tests add more flows and
prefixes of the three archive logs. Below the schedules, a batch of steps offers the same
windows, and the sigma bounds agree up to the order of their sums.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from node_replay_cases import KTH_CLASSES, kth_flow, random_flow, schedule
from random_instances import random_instance
from search_steps import all_steps, search_inputs

from gridsim.core import optional
from gridsim.core import search as compiled_search
from gridsim.experiments.swf_replay_nodes import node_level_instance
from gridsim.model import Node, Request
from gridsim.profile import Profile
from gridsim.selection.placement import CoP
from gridsim.selection.registry import build_criterion
from gridsim.selection.ties import BOUND_SLACK, Contenders
from gridsim.selection.window_search import Joinable
from gridsim.workloads.platform import log_platform
from gridsim.workloads.swf import read_swf

needs_compiled = pytest.mark.skipif(
    compiled_search.compiled() is None, reason="the compiled search is not built or is off"
)
pytestmark = needs_compiled

CRITERIA = ["CoP", "PAST", {"name": "PAST", "rule2": "as_described"}, {"name": "CoP",
            "delta2": 3.0, "epsilon1": 0.1}]  # fmt: skip
#: The criteria whose whole search runs compiled: the placement rules, BFfinish and BFstart.
SEARCHED = [*CRITERIA, "BFfinish", "BFstart"]
SCHEDULERS = ["conservative", "easy", "fcfs"]
FULL_LOG_DIR = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf"))


@pytest.fixture
def kernel_calls(monkeypatch) -> dict[str, int]:
    """How often the test called each compiled kernel (so that a test sees they ran)."""
    calls = {"find": 0, "choose": 0, "bounds": 0}
    for name, key in (("find_window", "find"), ("placement_rows", "choose"),
                      ("placement_sigma_bounds", "bounds")):  # fmt: skip
        kernel = getattr(compiled_search, name)

        def counted(*args, kernel=kernel, key=key):
            calls[key] += 1
            return kernel(*args)

        monkeypatch.setattr(compiled_search, name, counted)
    return calls


def both_paths(monkeypatch, run):
    """``run()`` with the compiled kernels, then with the Python path."""
    compiled = run()
    with monkeypatch.context() as python_path:
        python_path.setenv("GRIDSIM_PURE_PYTHON", "1")
        python = run()
    return compiled, python


def assert_same_schedules(monkeypatch, instance, criterion, scheduler):
    compiled, python = both_paths(monkeypatch, lambda: schedule(instance, criterion, scheduler))
    pd.testing.assert_frame_equal(compiled, python, check_exact=True)


@pytest.mark.parametrize(
    "spec, scheduler",
    [("CoP", "conservative"), ("CoP", "easy"), ("CoP", "fcfs"), ("PAST", "conservative"),
     (CRITERIA[2], "easy"), (CRITERIA[3], "conservative"), ("BFfinish", "conservative"),
     ("BFfinish", "easy"), ("BFstart", "conservative")],
    ids=str,
)  # fmt: skip
def test_random_flows_schedule_as_the_python_path(monkeypatch, kernel_calls, spec, scheduler):
    criterion = build_criterion(spec)
    for seed, limits in ((0, False), (2, True)):
        assert_same_schedules(monkeypatch, random_flow(seed, limits=limits), criterion, scheduler)
    assert kernel_calls["find"] > 0  # the compiled search did run


def test_kth_prefix_schedules_as_the_python_path(monkeypatch, kernel_calls):
    assert_same_schedules(monkeypatch, kth_flow(100), build_criterion("CoP"), "conservative")
    assert kernel_calls["find"] > 100


def test_a_plugin_subclass_runs_the_python_path(monkeypatch, kernel_calls):
    @dataclasses.dataclass(frozen=True)
    class Shifted(CoP):
        def slot_values(self, slot_start, slot_end, q, cost, start, runtime, performance=None):
            return super().slot_values(slot_start, slot_end, q, cost, start, runtime,
                                       performance) + 0.5 * performance  # fmt: skip

    assert_same_schedules(monkeypatch, random_flow(3, limits=False), Shifted(), "conservative")
    shorter = build_criterion("BFshort")  # a subclass of BFfinish
    assert_same_schedules(monkeypatch, random_flow(3, limits=False), shorter, "conservative")
    slowest_ties = build_criterion({"name": "BFstart", "ties": "slowest"})  # another reading
    assert_same_schedules(monkeypatch, random_flow(3, limits=False), slowest_ties, "conservative")
    assert kernel_calls == {"find": 0, "choose": 0, "bounds": 0}


def varied_request(seed: int, request: Request, nodes: int) -> Request:
    """``request`` without a budget, with one of the variations the compiled search reads:
    another size (one node included), eligible nodes, resource prices, discrete time."""
    rng = np.random.default_rng(seed)
    request = dataclasses.replace(request, budget=math.inf, n=int(rng.integers(1, 6)))
    variation = seed % 4
    if variation == 1:
        allowed = rng.choice(nodes, size=max(request.n, nodes - 3), replace=False)
        request = dataclasses.replace(request, nodes_allowed=tuple(sorted(int(i) for i in allowed)))
    elif variation == 2:
        extra = rng.choice([0.0, 0.5, 1.0], size=nodes)
        request = dataclasses.replace(request, resource_price=tuple(float(p) for p in extra))
    elif variation == 3:
        request = dataclasses.replace(request, time_quantum=float(rng.choice([1.0, 7.0])))
    return request


def tied_instance(seed: int) -> tuple[Profile, Request]:
    """Two classes of identical nodes whose free slots start and end together (whole-number
    times): windows of equal value everywhere, so the tie rule decides."""
    rng = np.random.default_rng(seed)
    nodes = [Node(i, 1.0 if i < 6 else 1.5, 1.0 if i < 6 else 2.0) for i in range(10)]
    busy = []
    for _ in nodes:
        ends = sorted(
            rng.choice([10.0, 20.0, 30.0, 40.0], size=int(rng.integers(0, 3)), replace=False)
        )
        busy.append([(end - 10.0, end) for end in ends])
    request = Request(int(rng.integers(1, 8)), float(rng.choice([10.0, 15.0, 30.0])),
                      earliest_start=float(rng.choice([0.0, 5.0, 10.0])))  # fmt: skip
    return Profile(nodes, busy), request


@pytest.mark.parametrize("spec", SEARCHED, ids=str)
def test_the_compiled_search_chooses_the_python_window(monkeypatch, kernel_calls, spec):
    criterion = build_criterion(spec)
    cases = [random_instance(seed) for seed in range(24)] + [tied_instance(s) for s in range(24)]
    for seed, (profile, request) in enumerate(cases):
        request = varied_request(seed, request, len(profile.nodes))
        if seed % 3 == 0:  # a table with some slot starts moved to the earliest start
            request = dataclasses.replace(request, earliest_start=request.earliest_start + 7.5)
        search = functools.partial(criterion.search, profile, request)
        compiled, python = both_paths(monkeypatch, search)
        assert compiled == python, (seed, request)
    assert kernel_calls["find"] == len(cases)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf
def test_a_budget_or_a_value_not_finite_runs_the_python_search(monkeypatch, kernel_calls):
    profile, request = random_instance(1)
    criterion = build_criterion("CoP")
    budgeted = dataclasses.replace(request, budget=1e9)
    compiled, python = both_paths(monkeypatch, lambda: criterion.search(profile, budgeted))
    assert compiled == python and kernel_calls["find"] == 0
    # A node of infinite performance makes every value -inf: the compiled search declines.
    nodes = [Node(0, math.inf, 1.0), *(Node(i, 1.0, 1.0) for i in range(1, 4))]
    request = Request(2, 10.0)
    compiled, python = both_paths(monkeypatch, lambda: criterion.search(Profile(nodes), request))
    assert compiled == python and kernel_calls["find"] == 1


@pytest.mark.parametrize("spec", CRITERIA, ids=str)
@pytest.mark.parametrize("seed", range(6))
def test_a_batch_of_steps_offers_the_windows_of_the_python_path(
    monkeypatch, kernel_calls, spec, seed
):
    profile, request = random_instance(seed)
    request = dataclasses.replace(request, budget=math.inf, n=max(request.n, 2))
    step = all_steps(profile, request)
    if step is None:
        pytest.skip("no steps")
    criterion = build_criterion(spec)
    # Once from nothing found, once after a window worth about the best of the batch.
    for found in (-math.inf, None):

        def offered(found=found):
            contenders = Contenders()
            if found is None:
                criterion.choose(step, request.n - 1, contenders)
                top = contenders.top
                contenders = Contenders()
                contenders.top = top - 1e-3 * (abs(top) + 1.0)
            criterion.choose(step, request.n - 1, contenders)
            return contenders.best(), contenders.top

        compiled, python = both_paths(monkeypatch, offered)
        assert compiled == python
    assert kernel_calls["choose"] > 0


@pytest.mark.parametrize("spec", CRITERIA, ids=str)
@pytest.mark.parametrize("seed", range(6))
def test_sigma_bounds_agree_up_to_the_order_of_their_sums(monkeypatch, kernel_calls, spec, seed):
    profile, request = random_instance(seed)
    request = dataclasses.replace(request, budget=math.inf)
    slots, runtime, sigmas = search_inputs(profile, request)
    criterion = build_criterion(spec)

    def bounds():
        joinable = Joinable.of(slots, sigmas, runtime[sigmas], request)
        return criterion.sigma_bounds(slots, sigmas, runtime[sigmas], request, joinable)

    compiled, python = both_paths(monkeypatch, bounds)
    assert kernel_calls["bounds"] == 1
    np.testing.assert_array_equal(np.isfinite(compiled), np.isfinite(python))
    np.testing.assert_array_equal(compiled[~np.isfinite(python)], python[~np.isfinite(python)])
    finite = np.isfinite(python)
    # Each sums n bounds in its own order: within the slack the search allows for that.
    slack = BOUND_SLACK * (np.abs(python[finite]) + 1.0)
    assert (np.abs(compiled[finite] - python[finite]) <= slack).all()


def test_without_the_extension_the_python_path_runs_after_one_warning(monkeypatch):
    def missing(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(compiled_search.compiled, "module", None)
    monkeypatch.setattr(compiled_search.compiled, "warned", False)
    monkeypatch.setattr(optional.importlib, "import_module", missing)
    with pytest.warns(RuntimeWarning, match="compiled node-level core is not available"):
        assert compiled_search.compiled() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled_search.compiled() is None  # once per process


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("spec", SEARCHED, ids=str)
@pytest.mark.parametrize("seed", range(3, 23))
def test_more_random_flows(monkeypatch, seed, spec, scheduler):
    assert_same_schedules(monkeypatch, random_flow(seed, limits=seed % 2 == 0),
                          build_criterion(spec), scheduler)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    "log, jobs",
    [("KTH-SP2-1996-2.1-cln.swf.gz", 1500), ("HPC2N-2002-2.1-cln.swf.gz", 800),
     ("SDSC-BLUE-2000-4.2-cln.swf.gz", 800)],
)  # fmt: skip
@pytest.mark.parametrize("policy", ["CoP", "BFfinish"])
def test_archive_log_prefixes_schedule_as_the_python_path(monkeypatch, log, jobs, policy):
    path = FULL_LOG_DIR / log
    if not path.exists():
        pytest.skip(f"{path} is not here")
    swf = read_swf(path)
    platform = log_platform(swf.machine_processors, KTH_CLASSES)
    instance = node_level_instance(swf.jobs.iloc[:jobs].reset_index(drop=True), platform)
    assert_same_schedules(monkeypatch, instance, build_criterion(policy), "conservative")

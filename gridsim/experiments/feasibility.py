"""Scenarios that cannot produce a result, refused before anything runs.

Consumes one validated scenario (a point of an experiment); raises a
:class:`~gridsim.config.ScenarioError` naming the field when no replication of it could give
a result: a request wider than the environment, a minimum performance no node can have, a
budget below the cheapest window the generators can draw, a task longer than the horizon, a
log with no job to replay or no machine size, a machine too large for this computer's
memory. Each check is a bound that holds for *every* draw of the generators, so a scenario
that is merely unlikely to succeed still runs; what a run cannot do by chance is counted
while it runs (:mod:`gridsim.experiments.rejections`).

The memory bound is measured, not derived: peak resident memory of ``gridsim run -j 1`` on
window searches of 1,000 to 5,000 nodes grows as about 175 bytes per node squared (the
window search's sigma-by-slot matrices), environments take about 1 kB per node, and a job
flow about 6 kB per job and policy (docs/model.md, "Feasibility checks").
"""

from __future__ import annotations

import math
import os
from typing import Any

from gridsim.config import ScenarioError

#: Measured memory per node (bytes): the environment and its profile, and the window
#: search's matrices (per node squared).
BYTES_PER_NODE = 1_000
BYTES_PER_NODE_SQUARED_IN_WINDOW_SEARCH = 150
#: Measured memory per job of a job flow and policy (bytes): its trace records and tables.
BYTES_PER_JOB_AND_POLICY = 6_000
#: Most rounds of the cloud pilot factory before the horizon: 230 times the default's
#: 43,200 (30 days of one round a minute); beyond, a run would not end in reasonable time.
MAX_FACTORY_ROUNDS = 10_000_000


def check_feasible(scenario: Any) -> None:
    """Raise a ScenarioError naming the field if ``scenario`` cannot produce a result (the
    check its kind declares, :class:`~gridsim.experiments.kinds.KindDeclaration`)."""
    from gridsim.experiments.kinds import declaration

    check = declaration(scenario.kind).check_feasible
    if check is not None:
        check(scenario)


def _fail(field: str, what: str) -> None:
    raise ScenarioError(f"{field}: {what}")


def _number(value: float) -> str:
    return f"{value:.4g}"


def highest_performance(environment: Any) -> float:
    """The fastest node the environment generator can draw (its top performance level)."""
    low, high = environment.performance.low, environment.performance.high
    step = environment.performance_step
    if step <= 0:
        return high
    return low + step * math.floor((high - low) / step + 1e-9)


def cheapest_work_price(environment: Any, min_performance: float) -> float:
    """A lower bound on ``price / performance`` (money per work unit) over the nodes the
    generator can draw at or above ``min_performance``: a task of volume ``V`` on any such
    node costs at least ``V`` times it, whatever window it is in (the window runs at its
    slowest node's pace, never faster than the node's own)."""
    price = environment.price
    low = max(environment.performance.low, min_performance)
    high = highest_performance(environment)
    if price.model == "proportional":
        return price.base * (1 - price.spread)
    candidates = [low, high]  # growth ** p / p: smallest at an end or at p = 1 / ln(growth)
    if price.growth > 1:
        candidates.append(min(max(1 / math.log(price.growth), low), high))
    return price.base * (1 - price.spread) * min(price.growth**p / p for p in candidates)


def _check_environment(environment: Any, n: int, min_performance: float, prefix: str) -> None:
    """A request of ``n`` nodes at ``min_performance`` against the environment generator."""
    if n > environment.nodes:
        _fail(f"{prefix}.n", f"{n} nodes requested, but environment.nodes is "
                             f"{environment.nodes}")  # fmt: skip
    fastest = highest_performance(environment)
    if min_performance > fastest:
        _fail(f"{prefix}.min_performance", f"{_number(min_performance)} is above the fastest "
              f"node the environment can have ({_number(fastest)}, "
              "environment.performance)")  # fmt: skip


def _check_memory(field: str, count: int, noun: str, needed: float) -> None:
    available = physical_memory()
    if available is not None and needed > available:
        _fail(field, f"{count} {noun} would need about {_bytes(needed)} of memory per replication "
                     f"(estimated), more than this computer's {_bytes(available)}")  # fmt: skip


def physical_memory() -> float | None:
    """This computer's memory in bytes (None where the system does not say)."""
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _bytes(size: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:.3g} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def check_window_search(scenario: Any) -> None:
    environment, request = scenario.environment, scenario.request
    _check_environment(environment, request.n, request.min_performance, "request")
    lowest_price = cheapest_work_price(environment, request.min_performance)
    cheapest = request.n * request.volume * lowest_price
    if request.budget < cheapest:
        _fail("request.budget", f"{_number(request.budget)} is below the cheapest window the "
              f"environment can offer, {_number(cheapest)} ({request.n} tasks of volume "
              f"{_number(request.volume)} at the lowest price per work unit)")  # fmt: skip
    shortest = request.volume / highest_performance(environment)
    if shortest > environment.horizon:
        _fail("request.volume", f"a task lasts at least {_number(shortest)} time units on the "
              f"fastest node, longer than environment.horizon "
              f"({_number(environment.horizon)})")  # fmt: skip
    nodes = environment.nodes
    needed = BYTES_PER_NODE * nodes + BYTES_PER_NODE_SQUARED_IN_WINDOW_SEARCH * nodes**2
    _check_memory("environment.nodes", nodes, "nodes", needed)


def check_jobflow(scenario: Any) -> None:
    environment, jobs = scenario.environment, scenario.jobs
    smallest = jobs.n[0]
    if smallest > environment.nodes:
        _fail("jobs.n", f"every job asks for at least {smallest} nodes, but environment.nodes "
                        f"is {environment.nodes}")  # fmt: skip
    _check_environment(environment, smallest, jobs.min_performance, "jobs")
    cheapest = smallest * jobs.volume.low * cheapest_work_price(environment, jobs.min_performance)
    if jobs.budget < cheapest:
        _fail("jobs.budget", f"{_number(jobs.budget)} is below the cheapest window of the "
              f"smallest job, {_number(cheapest)}: no job could be placed")  # fmt: skip
    nodes = environment.nodes
    _check_memory("environment.nodes", nodes, "nodes", BYTES_PER_NODE * nodes)
    jobs_held = max(scenario.queue_sizes) * len(scenario.policies)
    _check_memory("queue_sizes", max(scenario.queue_sizes), "jobs",
                  BYTES_PER_NODE * nodes + BYTES_PER_JOB_AND_POLICY * jobs_held)  # fmt: skip


def check_batch(scenario: Any) -> None:
    slots, jobs = scenario.slots, scenario.jobs
    if jobs.nodes[0] > slots.count[1]:
        _fail("jobs.nodes", f"every job asks for at least {jobs.nodes[0]} slots, but a slot "
                            f"list has at most {slots.count[1]} (slots.count)")  # fmt: skip
    if jobs.min_performance[0] > slots.performance[1]:
        _fail("jobs.min_performance", f"every job needs performance {jobs.min_performance[0]:g} "
              f"or more, above every slot's (slots.performance up to "
              f"{slots.performance[1]:g})")  # fmt: skip
    shortest = jobs.runtime[0] * jobs.min_performance[0] / slots.performance[1]
    if shortest > slots.length[1]:
        _fail("jobs.runtime", f"a task lasts at least {_number(shortest)} time units, longer "
              f"than any slot (slots.length up to {slots.length[1]:g})")  # fmt: skip
    if slots.price_base >= 1 and slots.price_spread[0] > jobs.price_markup[1]:
        for index, policy in enumerate(scenario.policies):
            if policy.name == "ALP":
                _fail(f"policies.{index}", "ALP can find no slot: every eligible slot costs at "
                      f"least slots.price_spread's low end ({slots.price_spread[0]:g}) times "
                      "the nominal price, above the price cap (jobs.price_markup up to "
                      f"{jobs.price_markup[1]:g} times it)")  # fmt: skip
    _check_memory("slots.count", slots.count[1], "slots", BYTES_PER_NODE * slots.count[1])


def check_cloud(scenario: Any) -> None:
    if all(step.vms == 0 for provider in scenario.providers for step in provider.capacity):
        _fail("providers", "no provider ever accepts a VM (every capacity step has vms: 0)")
    framework = scenario.framework
    rounds = framework.horizon_s / framework.factory_interval_s
    if rounds > MAX_FACTORY_ROUNDS:
        _fail("framework.factory_interval_s", f"{_number(framework.factory_interval_s)} s gives "
              f"{_number(rounds)} factory rounds before framework.horizon_s "
              f"({_number(framework.horizon_s)} s); at most {MAX_FACTORY_ROUNDS:.0e} run in "
              "reasonable time")  # fmt: skip


def check_swf_replay(scenario: Any) -> None:
    """Read the log now: a malformed line, a damaged file, a log with no job to replay or
    without a machine size (and no node classes), node classes with cores, memory or GPUs
    that no job fits or of different performance, are named before any worker starts (the
    counts of jobs dropped while reading, or that fit no nodes, go in the runs table)."""
    from gridsim.experiments.swf_replay import load_log, machine_nodes
    from gridsim.experiments.swf_replay_resources import check_platform, requests_of
    from gridsim.workloads.platform import log_platform
    from gridsim.workloads.swf import SwfFormatError

    try:
        log = load_log(scenario)
    except (ScenarioError, SwfFormatError):
        raise
    except ValueError as error:  # no job left to replay
        raise ScenarioError(str(error)) from None
    nodes, field = machine_nodes(scenario, log)
    _check_memory(field, nodes, "nodes", BYTES_PER_NODE * nodes)
    platform = log_platform(log.machine_processors, scenario.platform)
    check_platform(scenario, log, platform, requests_of(scenario, log, platform))

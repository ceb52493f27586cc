"""Lite searches with and without the step bounds that skip steps, in one process.

    python benchmarks/bench_step_bounds.py [--rounds 16] [--criteria MaxQLite,DEPLite,COORDLite]
    python benchmarks/bench_step_bounds.py --jobflow [--rounds 3]

The baseline is the search as it was before the bounds (gridsim/selection/block_bounds.py):
the same criterion with ``step_bounds`` returning None, so that every step of every visited
slowest slot is evaluated, with steps evaluated ahead up to 8 times the sigmas evaluated before
(now 16).
Both run over the 20 instances of ``bench_window_search.py`` in alternation (the order swapped
every round), so that both see the same load; separate processes differ by up to 10% on a
shared machine with the same code. Prints the medians of the rounds' processor-time medians,
their ratio, the steps evaluated by each, and checks that both find the same window, to the
last bit, on every instance.

``--jobflow`` times a job flow instead: the first point of ``scenarios/dependability.yaml``
(32 nodes, 100 jobs of 1-8 tasks) with 3 replications and its Lite policy plus DEPLite,
COORDLite and MaxQLite, run in this process with and without the bounds alternately; it prints
the median over the rounds of each policy's simulation time (``sim_time_s`` summed over the
replications) and checks that the jobs and tasks written are the same.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
from pathlib import Path

import pandas as pd
import yaml
from paired_searches import REQUEST, alternating_medians, reference_profiles, same_windows

import gridsim.selection.criteria as criteria
import gridsim.selection.steps as steps
from gridsim.cli import main as gridsim_main
from gridsim.selection.registry import CRITERIA

#: Steps evaluated ahead (steps._AHEAD) by each version.
AHEAD = {"all steps": 8, "bounded": steps._AHEAD}


def without_bounds(cls: type) -> type:
    """The criterion evaluating every step (not registered)."""
    return type(cls.__name__, (cls,), {"step_bounds": lambda self, step, count: None})


def steps_evaluated(criterion, profiles, ahead: int) -> int:
    """Rows evaluated by the criterion over the profiles (counted at the row scoring)."""
    steps._AHEAD = ahead
    counted = [0]
    score = steps._score_cheapest

    def counting(step, count, row_values):
        counted[0] += len(step.start)
        return score(step, count, row_values)

    steps._score_cheapest = counting
    try:
        for profile in profiles:
            criterion.search(profile, REQUEST)
    finally:
        steps._score_cheapest = score
    return counted[0]


SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "dependability.yaml"


def jobflow(rounds: int) -> None:
    """The job-flow comparison (see the module docstring)."""
    scenario = yaml.safe_load(SCENARIO.read_text())
    for key in ("sweep", "zip"):
        scenario.pop(key, None)
    scenario["replications"] = 3
    scenario["policies"] = ["BFfinish", {"name": "DEPLite", "max_distance": 50}]
    scenario["policies"] += ["DEPLite", "COORDLite", "MaxQLite"]
    bounded_step_bounds = criteria.SlotCriterion.step_bounds
    times: dict[str, dict[str, list[float]]] = {"all steps": {}, "bounded": {}}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "jobflow.yaml"
        path.write_text(yaml.safe_dump(scenario))
        for round_ in range(rounds):
            order = list(times) if round_ % 2 == 0 else list(times)[::-1]
            for version in order:
                steps._AHEAD = AHEAD[version]
                criteria.SlotCriterion.step_bounds = (
                    bounded_step_bounds if version == "bounded" else lambda self, step, count: None
                )
                out = Path(folder) / version
                arguments = ["run", str(path), "-j", "1", "-q", "-o", str(out), "--overwrite"]
                with contextlib.redirect_stdout(io.StringIO()):  # its summary table
                    gridsim_main(arguments, standalone_mode=False)
                runs = pd.concat(map(pd.read_parquet, sorted(out.glob("runs/**/*.parquet"))))
                for policy, spent in runs.groupby("policy").sim_time_s.sum().items():
                    times[version].setdefault(policy, []).append(spent)
        criteria.SlotCriterion.step_bounds = bounded_step_bounds
        same = all(
            pd.read_parquet(a).equals(pd.read_parquet(b))
            for kind in ("jobs", "tasks")
            for a, b in zip(
                sorted((Path(folder) / "all steps").glob(f"{kind}/**/*.parquet")),
                sorted((Path(folder) / "bounded").glob(f"{kind}/**/*.parquet")),
                strict=True,
            )
        )
    for policy in times["bounded"]:
        before = statistics.median(times["all steps"][policy])
        now = statistics.median(times["bounded"][policy])
        print(
            f"{policy:<26} all steps {before:.3f} s  bounded {now:.3f} s"
            f"  all / bounded {before / now:.2f}"
        )
    print(f"same jobs and tasks: {'yes' if same else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--criteria", default="MaxQLite,DEPLite,COORDLite")
    parser.add_argument("--jobflow", action="store_true")
    options = parser.parse_args()
    if options.jobflow:
        jobflow(options.rounds)
        return
    names = options.criteria.split(",")
    profiles = reference_profiles()
    versions = {
        "all steps": {name: without_bounds(CRITERIA[name]) for name in names},
        "bounded": {name: CRITERIA[name] for name in names},
    }

    def prepare(version: str) -> None:
        steps._AHEAD = AHEAD[version]

    medians = alternating_medians(versions, names, profiles, options.rounds, prepare)
    for name in names:
        before, now = medians[("all steps", name)], medians[("bounded", name)]
        windows = []
        for version in versions:
            prepare(version)
            windows.append([versions[version][name]().search(p, REQUEST) for p in profiles])
        same = same_windows(*windows)
        rows = [steps_evaluated(versions[v][name](), profiles, AHEAD[v]) for v in versions]
        print(
            f"{name:<10} all steps {1e3 * before:.2f} ms  bounded {1e3 * now:.2f} ms"
            f"  all / bounded {before / now:.2f}  steps {rows[0]} / {rows[1]}"
            f"  same windows: {'yes' if same else 'NO'}"
        )


if __name__ == "__main__":
    main()

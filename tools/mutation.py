"""Mutation testing of one core module at a time, sized for a shared 2-core machine.

    python tools/mutation.py gridsim/selection/subset.py            # its default tests
    python tools/mutation.py gridsim/sim/engine.py --tests tests/jobflow tests/contracts
    python tools/mutation.py gridsim/analysis/stats.py --survivors   # after new tests

Copies the repository's tracked files to a scratch folder (``.mutation/<module>/``, ignored by
git), configures mutmut there to mutate only that module and to run only the given tests
(default: :data:`TESTS`), and runs ``nice -n 10 mutmut run --max-children 2``. mutmut first
runs those tests once to learn which test reaches which function, then runs, per mutant, only
the tests that reach its function. Prints the score (killed / (killed + survived + untested),
timeouts counted as killed) and writes the survivors' diffs to ``survivors.txt`` there.
``--sample K`` runs only the mutants whose number ends in 0 to K-1, a systematic sample of K
tenths of each function's mutants, for modules whose tests are long; the score is then the
sample's (the mutants not run count in ``total`` only).
``--survivors`` re-runs only the survivors (and untested mutants) of the last run of that
module, in the same folder with the working tree's files copied over it (new tests are timed
first): minutes instead of a whole run, and the counts and score printed are the whole
module's again.
Why per module with its own tests: the whole suite under mutmut's trampolines takes hours on
this machine; a module's own tests take minutes. The score is then a floor: a mutant that
survives here might still die in another folder's tests.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tests_in(path: str, *names: str) -> list[str]:
    """Pytest node ids of the tests ``test_<name>`` of one file."""
    return [f"{path}::test_{name}" for name in names]


#: Default tests per core module: the tests written for it and for the code that calls it.
TESTS = {
    "gridsim/profile.py": ["tests/test_profile.py", "tests/test_window_search.py"],
    "gridsim/selection/subset.py": ["tests/test_subset.py", "tests/test_window_search.py"],
    "gridsim/selection/exact.py": ["tests/test_window_search.py", "tests/test_criteria.py",
                                   "tests/test_subset.py", "tests/test_members.py",
                                   "tests/test_window_ties.py", "tests/test_lagrangian_bounds.py",
                                   "tests/test_exact_allocation.py"],
    "gridsim/selection/window_search.py": ["tests/test_window_search.py",
                                           "tests/test_window_search_edges.py",
                                           "tests/test_visiting_order.py",
                                           "tests/test_window_ties.py", "tests/test_criteria.py",
                                           "tests/test_feasibility.py", "tests/test_members.py"],
    "gridsim/selection/criteria.py": ["tests/test_criteria.py", "tests/test_criteria_contracts.py",
                                      "tests/test_criterion_factories.py",
                                      "tests/test_window_search.py",
                                      "tests/test_window_ties.py", "tests/test_visiting_order.py",
                                      "tests/plugins/test_plugin_criteria.py",
                                      "tests/test_scenario_yaml.py",
                                      "tests/jobflow/test_jobflow_criteria.py",
                                      "tests/test_block_bounds.py"],
    "gridsim/selection/steps.py": ["tests/test_window_search.py",
                                   "tests/test_window_search_edges.py", "tests/test_window_ties.py",
                                   "tests/test_visiting_order.py",
                                   "tests/test_criteria_contracts.py",
                                   "tests/test_exact_allocation.py", "tests/test_members.py",
                                   "tests/test_block_bounds.py", "tests/test_step_rows.py",
                                   "tests/test_placement_criteria.py"],
    "gridsim/selection/placement.py": ["tests/test_placement_criteria.py",
                                       "tests/test_criteria.py",
                                       "tests/test_criteria_contracts.py",
                                       "tests/test_window_search.py",
                                       "tests/test_window_search_edges.py",
                                       "tests/test_feasibility.py", "tests/test_readings.py",
                                       "tests/jobflow/test_jobflow_criteria.py",
                                       "tests/jobflow/test_backfilling_rules.py",
                                       "tests/jobflow/test_backfilling_by_hand.py"],
    "gridsim/selection/block_bounds.py": ["tests/test_block_bounds.py"],
    "gridsim/selection/members.py": ["tests/test_members.py", "tests/test_window_search.py"],
    "gridsim/selection/earliest.py": ["tests/test_window_search.py",
                                      "tests/test_window_search_edges.py",
                                      "tests/test_window_ties.py", "tests/test_visiting_order.py",
                                      "tests/test_earliest_bound.py"],
    "gridsim/selection/guard.py": ["tests/plugins/test_criterion_guard.py",
                                   "tests/plugins/test_plugin_criteria.py",
                                   "tests/plugins/test_scheduler_guard.py"],
    "gridsim/scheduling/earlier_windows.py": ["tests/nodereplay/test_earlier_windows.py"],
    # The event-by-event tests (tiny flows against the reference planners, hand-worked
    # cases) and the other tests that take milliseconds: the property tests and whole
    # experiments with plugins took seconds per mutant.
    "gridsim/scheduling/queue_policies.py": [
        "tests/jobflow/test_queue_policy_rules.py",
        *tests_in("tests/jobflow/test_queue_policies.py",
            "easy_backfills_on_the_heads_spare_nodes",
            "easy_withdraws_a_window_when_a_second_completion_lets_the_head_start",
            "a_job_that_fits_nowhere_is_rejected",
            "unknown_scheduler_names_are_refused",
            "fcfs_under_sjf_re_plans_the_queue_when_a_shorter_job_overtakes_it"),
        "tests/jobflow/test_engine.py",
        "tests/contracts/test_same_instant_order.py",
        *tests_in("tests/plugins/test_plugin_schedulers.py",
            "a_scheduler_plugin_that_breaks_its_contract_is_refused_when_the_scenario_loads",
            "a_scheduler_that_breaks_an_invariant_is_stopped_naming_it_the_job_and_the_time",
            "installed_schedulers_are_described_and_one_named_like_a_built_in_is_hidden",
            "a_scheduler_spec_needs_a_name_and_leaves_the_priority_to_the_scenario",
            "a_built_in_planner_driving_a_plugin_criterion_comes_back_guarded_unchecked"),
        "tests/plugins/test_scheduler_guard.py"],
    # The method-by-method tests and the hand-worked ones (milliseconds each): the property
    # tests of hundreds of examples and the replays took seconds per mutant.
    "gridsim/scheduling/counting_profile.py": [
        "tests/swfreplay/test_counting_profile_rules.py",
        *tests_in("tests/swfreplay/test_swf_replay_profile.py",
            "reservations_split_steps_and_releases_restore_them",
            "earliest_fit_needs_enough_processors_over_the_whole_duration",
            "over_commitment_is_refused",
            "forgetting_the_past_keeps_the_step_in_progress",
            "fits_before_asks_whether_any_instant_up_to_a_time_has_enough_free",
            "released_reservations_leave_no_breakpoint_behind",
            "the_step_function_survives_growth_and_forgetting",
            "a_range_over_several_steps_is_refused_with_what_is_wrong")],
    "gridsim/scheduling/guard.py": ["tests/plugins/test_plugin_schedulers.py",
                                    "tests/plugins/test_scheduler_guard.py"],
    "gridsim/scheduling/backfilling.py": ["tests/jobflow", "tests/contracts"],
    "gridsim/scheduling/log_schedulers.py": ["tests/swfreplay/test_swf_replay_schedulers.py",
                                             "tests/swfreplay/test_easy_spare_processors.py",
                                             "tests/workloads"],
    "gridsim/scheduling/disruptions.py": ["tests/faults/test_disruption_rules.py",
                                          "tests/faults/test_consequences_by_hand.py",
                                          "tests/faults/test_fault_invariants.py",
                                          "tests/faults/test_jobflow_faults.py",
                                          "tests/faults/test_unfaulted.py"],
    "gridsim/scheduling/batch/optimise.py": ["tests/batch"],
    "gridsim/scheduling/batch/cycle.py": ["tests/batch"],
    "gridsim/scheduling/batch/slots.py": ["tests/batch"],
    "gridsim/scheduling/batch/search.py": ["tests/batch"],
    "gridsim/scheduling/batch/window.py": ["tests/batch"],
    "gridsim/sim/engine.py": ["tests/jobflow/test_engine.py",
                              "tests/jobflow/test_backfilling_by_hand.py",
                              "tests/jobflow/test_invariants.py",
                              "tests/jobflow/test_queue_policies.py",
                              "tests/contracts/test_same_instant_order.py",
                              "tests/contracts/test_compression.py",
                              "tests/faults/test_consequences_by_hand.py"],
    "gridsim/sim/fault_engine.py": ["tests/faults/test_fault_engine_rules.py",
                                    "tests/faults/test_consequences_by_hand.py",
                                    "tests/faults/test_disruption_rules.py",
                                    "tests/faults/test_fault_invariants.py",
                                    "tests/faults/test_jobflow_faults.py",
                                    "tests/faults/test_unfaulted.py"],
    "gridsim/sim/trace.py": ["tests/jobflow/test_trace.py", "tests/jobflow/test_engine.py",
                             "tests/jobflow/test_backfilling_by_hand.py",
                             "tests/faults/test_consequences_by_hand.py",
                             "tests/faults/test_fault_invariants.py",
                             "tests/faults/test_jobflow_faults.py"],
    # Only the hand-worked replays: each replay_log mutant runs every selected test that
    # replays, and the KTH-SP2 comparison and the property tests took minutes per mutant.
    "gridsim/sim/log_replay.py": [
        "tests/swfreplay/test_log_replay_loop.py",
        *tests_in("tests/swfreplay/test_swf_replay_schedulers.py",
            "conservative_backfilling_protects_every_reservation",
            "easy_backfilling_protects_only_the_head_of_the_queue",
            "fcfs_never_lets_a_job_overtake_the_head",
            "an_early_finish_compresses_reservations_in_one_pass",
            "easy_starts_the_new_head_at_its_shadow_time",
            "jobs_are_killed_at_their_estimate_and_processors_reused_at_once",
            "each_job_gets_distinct_free_node_ids_at_its_start",
            "a_job_larger_than_the_machine_is_an_error",
            "the_order_of_completions_at_one_instant_is_a_named_option",
            "easy_starts_jobs_after_each_completion_when_they_are_handed_over_one_at_a_time"),
        "tests/swfreplay/test_easy_spare_processors.py::"
        "test_long_backfilled_jobs_share_the_head_s_two_spare_processors"],
    "gridsim/experiments/cells.py": ["tests/test_cells.py", "tests/test_runner.py",
                                     "tests/test_store.py"],
    # The runner's steps on a stand-in kind (milliseconds a run): every test that runs an
    # experiment reaches every function of the runner, so each mutant runs them all.
    "gridsim/experiments/runner.py": ["tests/test_runner_steps.py"],
    "gridsim/experiments/store.py": ["tests/test_store.py", "tests/test_store_manifest.py",
                                     "tests/test_runner.py"],
    "gridsim/analysis/stats.py": ["tests/analysis/test_t_quantiles.py",
                                  "tests/analysis/test_stats_tables.py",
                                  "tests/analysis/test_paired_comparison.py",
                                  "tests/analysis/test_baselines_and_partial_results.py",
                                  "tests/analysis/test_analysis_results.py",
                                  "tests/analysis/test_analysis_report.py"],
    "gridsim/analysis/jobflow_stats.py": ["tests/analysis/test_run_metrics.py",
                                          "tests/jobflow/test_scenarios.py",
                                          "tests/analysis/test_sweep_analysis.py"],
    "gridsim/analysis/jobflow_metrics.py": ["tests/workloads/test_jobflow_metrics.py",
                                            "tests/analysis/test_run_metrics.py"],
    "gridsim/workloads/swf.py": ["tests/workloads/test_swf_reader.py",
                                 "tests/workloads/test_swf_edges.py"],
    "gridsim/cloud/dytss.py": ["tests/cloud"],
    "gridsim/cloud/selfscheduling.py": ["tests/cloud"],
    "gridsim/cloud/turnaround.py": ["tests/cloud"],
    "gridsim/cloud/simulation.py": ["tests/cloud"],
}  # fmt: skip


def module_folder(module: str) -> str:
    """The scratch folder's name: ``gridsim/sim/engine.py`` -> ``gridsim.sim.engine``."""
    return module.replace("/", ".").removesuffix(".py")


def scratch_copy(module: str, keep: bool = False) -> Path:
    """The tracked files (as in the working tree) in ``.mutation/<module>/``; ``keep``: over
    the previous run's folder (its mutants and results), else in a fresh one."""
    folder = ROOT / ".mutation" / module_folder(module)
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, files):
        source, target = ROOT / name, folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # scenarios/ -> gridsim/scenarios stays a link
            target.unlink(missing_ok=True)
            target.symlink_to(source.readlink())
        elif source.is_file():
            shutil.copy2(source, target)
    return folder


def configure(folder: Path, module: str, tests: list[str]) -> None:
    """pyproject's ``[tool.mutmut]``, narrowed to ``module`` and ``tests``."""
    pyproject = folder / "pyproject.toml"
    text = pyproject.read_text()
    head, _, _ = text.partition("[tool.mutmut]")
    import tomllib

    options = tomllib.loads(text)["tool"]["mutmut"]
    options.update(only_mutate=[module], pytest_add_cli_args_test_selection=tests)
    lines = ["[tool.mutmut]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in options.items()]
    pyproject.write_text(head + "\n".join(lines) + "\n")


#: The counts of the module's last run, merged over ``--survivors`` re-runs (mutmut forgets
#: the earlier results when the test selection changes).
COUNTS = "counts.json"


def statuses(folder: Path) -> dict[str, str]:
    """Every mutant's status as ``mutmut results`` reports it (killed, survived, ...)."""
    listing = subprocess.run(["mutmut", "results", "--all", "true"], cwd=folder,
                             capture_output=True, text=True).stdout  # fmt: skip
    return dict(line.strip().rsplit(": ", 1) for line in listing.splitlines() if ": " in line)


def counts(folder: Path, rerun: list[str], before: dict[str, int] | None) -> dict[str, int]:
    """killed, timeout, survived, no_tests and total: of the whole run, or (``rerun``) the
    counts ``before`` with the re-run survivors' new statuses in place of "survived"."""
    status = statuses(folder)
    if not rerun or before is None:
        subprocess.run(["mutmut", "export-cicd-stats"], cwd=folder, check=True,
                       capture_output=True)  # fmt: skip
        stats = json.loads((folder / "mutants" / "mutmut-cicd-stats.json").read_text())
        return {key: stats.get(key, 0) for key in ("killed", "timeout", "survived", "no_tests",
                                                   "total")}  # fmt: skip
    again = [status.get(name, "not checked") for name in rerun]
    merged = dict(before)
    merged["killed"] += again.count("killed")
    merged["timeout"] += again.count("timeout")
    merged["no_tests"] = again.count("no tests")  # the untested were re-run too
    merged["survived"] = len(again) - again.count("killed") - again.count("timeout") - (
        again.count("no tests"))  # fmt: skip
    return merged


def score(found: dict[str, int]) -> float:
    """killed / (killed + survived + untested), timeouts counted as killed."""
    killed = found["killed"] + found["timeout"]
    counted = killed + found["survived"] + found["no_tests"]  # untested: not killed
    return killed / counted if counted else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="a core module's path, e.g. gridsim/selection/subset.py")
    parser.add_argument("--tests", nargs="+", help="test files or folders (default: TESTS)")
    parser.add_argument("--children", type=int, default=2, help="parallel mutants (2)")
    parser.add_argument("--survivors", action="store_true",
                        help="re-run only the last run's survivors of this module")  # fmt: skip
    parser.add_argument("--sample", type=int, metavar="TENTHS", choices=range(1, 10),
                        help="run only the mutants numbered ...0 to ...TENTHS-1 (a systematic "
                        "sample of TENTHS tenths of every function's mutants)")  # fmt: skip
    args = parser.parse_args()
    tests = args.tests or TESTS.get(args.module)
    if not tests:
        parser.error(f"module: no default tests for {args.module}; give --tests")
    names: list[str] = []
    if args.survivors:
        listing = ROOT / ".mutation" / module_folder(args.module) / "survivors.txt"
        if not listing.is_file():
            parser.error(f"--survivors: no earlier run of {args.module} ({listing} missing)")
        names = [line[3:].strip() for line in listing.read_text().splitlines()
                 if line.startswith("== ")]  # fmt: skip
        if not names:
            print(json.dumps({"module": args.module, "survivors": 0}))
            return 0
    before = None
    if args.survivors:
        previous = ROOT / ".mutation" / module_folder(args.module)
        for path in (previous / COUNTS, previous / "mutants" / "mutmut-cicd-stats.json"):
            if path.is_file():  # counts.json, or the cicd stats of a run made before it
                found = json.loads(path.read_text())
                before = {key: found.get(key, 0) for key in ("killed", "timeout", "survived",
                                                             "no_tests", "total")}  # fmt: skip
                break
    if args.sample and args.survivors:
        parser.error("--sample: not with --survivors (which re-runs the sample's survivors)")
    if args.sample:
        prefix = module_folder(args.module)
        names = [f"{prefix}.*__mutmut_*[0-{args.sample - 1}]"]
    folder = scratch_copy(args.module, keep=args.survivors)
    configure(folder, args.module, tests)
    began = time.monotonic()
    run = subprocess.run(["nice", "-n", "10", "mutmut", "run", "--max-children",
                          str(args.children), *names], cwd=folder)  # fmt: skip
    minutes = (time.monotonic() - began) / 60
    if run.returncode and set(statuses(folder).values()) <= {"not checked"}:
        # The tests failed before any mutant ran (a failing or untracked test): keep the
        # last run's survivors and counts, which --survivors needs.
        print(f"mutmut stopped before any mutant ran (exit {run.returncode})", file=sys.stderr)
        return run.returncode
    survivors = [name for name, status in statuses(folder).items()
                 if status in ("survived", "no tests")]  # fmt: skip
    with open(folder / "survivors.txt", "w") as out:
        for name in survivors:
            shown = subprocess.run(["mutmut", "show", name], cwd=folder, capture_output=True,
                                   text=True)  # fmt: skip
            out.write(f"== {name}\n{shown.stdout}\n")
    found = counts(folder, names if args.survivors else [], before)
    (folder / COUNTS).write_text(json.dumps(found) + "\n")
    print(json.dumps({"module": args.module, "tests": tests, "minutes": round(minutes, 1),
                      **found, "score": round(score(found), 4)}))  # fmt: skip
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())

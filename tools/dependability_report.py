"""Write the dependability study's tables and figure into docs/dependability.md.

    python tools/dependability_report.py results/dependability

Reads the ``runs`` table of ``gridsim run scenarios/dependability.yaml -o <folder>``; writes
the figure of disturbed shares to docs/images/dependability/disturbed-share.png and replaces
the part of docs/dependability.md between the ``<!-- tables: begin -->`` and
``<!-- tables: end -->`` markers with the tables (paired against the baseline policy, 95%
intervals), so that every number on that page comes from this command.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from gridsim.analysis import dependability
from gridsim.analysis.results import load_table
from gridsim.experiments.grid import load_experiment

ROOT = Path(__file__).resolve().parents[1]
FAILURES, OVERRUNS = "faults.failures.rate", "faults.local_overruns.mean"
BEGIN, END = "<!-- tables: begin -->", "<!-- tables: end -->"


def tables_text(runs, jobs, horizon: float, baseline: str) -> str:
    axes = [FAILURES, OVERRUNS]
    shares = dependability.load_horizon_shares(jobs, horizon, axes)
    paired = dependability.paired_table(runs, baseline, axes)
    means = dependability.level_means(runs, axes)
    heaviest = {FAILURES: runs[FAILURES].max(), OVERRUNS: runs[OVERRUNS].max()}
    replications = int(runs.groupby([*axes, "policy"]).size().min())
    sections = [
        f"{replications} replications per fault level; every cell is a mean with its 95% "
        f"half-width. Differences are paired against {baseline} on the same instances and "
        "faults.",
        f"**Disturbed share, difference against {baseline}** (share of jobs; +0.05 is five "
        "more jobs in a hundred):",
        dependability.markdown_paired(paired, "disturbed_share", axes),
        f"**Start delay against the first reservation, difference against {baseline}** (time "
        "units per job):",
        dependability.markdown_paired(paired, "mean_start_delay", axes),
        f"**Mean finish time, relative to {baseline}**:",
        dependability.markdown_paired(paired, "mean_finish", axes, relative=True),
        f"**Cost including lost work, relative to {baseline}**:",
        dependability.markdown_paired(paired, "total_cost_with_losses", axes, relative=True),
        f"**Share of jobs that start after the local load ends** (time {horizon:g}; after it "
        "no local task runs, so none can overrun or be a neighbour):",
        dependability.markdown_shares(shares, "after_load", axes),
        f"**Disturbed share of the jobs that start while local load lasts** (before {horizon:g}):",
        dependability.markdown_shares(shares, "disturbed_in_load", axes),
        f"**Means at the heaviest level** ({FAILURES} = {heaviest[FAILURES]}, {OVERRUNS} = "
        f"{heaviest[OVERRUNS]}):",
        dependability.markdown_means(means, heaviest),
        f"**Means without faults** ({FAILURES} = 0, {OVERRUNS} = 0):",
        dependability.markdown_means(means, {FAILURES: 0.0, OVERRUNS: 0.0}),
    ]
    return "\n\n".join(sections)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="folder of the dependability run")
    parser.add_argument("--baseline", default="BFfinish")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs/dependability.md")
    parser.add_argument(
        "--figure", type=Path, default=ROOT / "docs/images/dependability/disturbed-share.png"
    )
    args = parser.parse_args()
    runs, jobs = load_table(args.results, "runs"), load_table(args.results, "jobs")
    if runs is None or jobs is None:
        parser.error(f"{args.results} holds no runs and jobs tables")
    # The local load's horizon of the scenario that made these results.
    text = json.loads((args.results / "metadata.json").read_text())["scenario_text"]
    horizon = load_experiment(text).scenario.environment.horizon
    figure = dependability.plot_disturbed_share(runs, [FAILURES, OVERRUNS])
    args.figure.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.figure, dpi=110)
    text = args.doc.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        parser.error(f"{args.doc} has no {BEGIN} ... {END} markers")
    replacement = f"{BEGIN}\n\n{tables_text(runs, jobs, horizon, args.baseline)}\n\n{END}"
    args.doc.write_text(pattern.sub(lambda _: replacement, text))
    print(f"wrote {args.figure} and the tables of {args.doc}")


if __name__ == "__main__":
    main()

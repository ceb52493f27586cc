"""Screenshots of ``gridsim explore`` for the documentation (docs/images/explore/).

Runs the bundled first 2000 jobs of KTH-SP2 under EASY backfilling and one replication of
paper 002's static queue of 50 jobs, writes their explorer pages, opens each in headless
Chromium (``tools/chromium.py``), clicks the job that waited longest among the large ones --
outlining the jobs it waited behind -- and hovers another, then takes the screenshot. About
half a minute:

    python tools/explore_screenshots.py                     # into docs/images/explore/
    python tools/explore_screenshots.py --out /tmp/shots    # elsewhere
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gridsim
from gridsim.analysis.explore import write_explorer
from gridsim.experiments.kinds import load_scenario
from gridsim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import chromium  # noqa: E402

#: Screenshot -> (scenario of scenarios/, its changes, policy, selection).
SHOTS = {
    "kth-excerpt.png": ("swf-replay.yaml", {"schedulers": ["easy"], "progress": False}, "easy",
                        {"replication": 0}),
    "jobflow.png": ("coordinated-placement-static.yaml", {"queue_sizes": [50]}, "CoP",
                    {"replication": 0, "queue_size": 50}),
}  # fmt: skip


def page(name: str, results_folder: Path) -> tuple[Path, gridsim.Results]:
    scenario_file, changes, policy, selection = SHOTS[name]
    scenario, text = load_scenario(ROOT / "scenarios" / scenario_file)
    folder = results_folder / Path(name).stem
    run_experiment(scenario.model_copy(update=changes), text, replications=1, jobs=1,
                   out_dir=folder, progress=False, overwrite=True)  # fmt: skip
    results = gridsim.load_results(folder)
    path = folder.with_suffix(".html")
    write_explorer(results, path, policy=policy, selection=selection)
    return path, results


def shoot(path: Path, jobs, image: Path) -> None:
    """Click the largest job that waited, hover the largest other one, take the picture."""
    ran = jobs[jobs["allocated_resources"] != ""]
    area = ran["processors"] * ran["run_time"]
    clicked = int(ran.loc[(area * ran["wait_time"]).idxmax(), "job_id"])
    hovered = int(ran.loc[area.drop(ran.index[ran["job_id"] == clicked]).idxmax(), "job_id"])
    with chromium.browser() as driver:
        driver.set_window_size(1400, 1120)  # the chart and both panels
        chromium.open_explorer(driver, path)
        for job, action in ((clicked, chromium.click_at), (hovered, chromium.move_to)):
            row = chromium.explorer(driver, f"e.rowOf({job})")
            action(driver, *chromium.explorer(driver, f"e.point({row})"))
        time.sleep(0.3)
        driver.save_screenshot(str(image))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "explore")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "doc-images")
    args = parser.parse_args(argv)
    reason = chromium.missing()
    if reason:
        sys.exit(f"no browser: {reason}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in SHOTS:
        path, results = page(name, args.results)
        _, _, policy, selection = SHOTS[name]
        jobs = results.jobs[results.jobs["policy"] == policy]
        for column, value in selection.items():
            jobs = jobs[jobs[column] == value]
        shoot(path, jobs, args.out / name)
        print(f"wrote {args.out / name}")


if __name__ == "__main__":
    main()

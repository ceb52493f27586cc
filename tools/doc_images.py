"""Draw the figures of docs/images/ from runs of the repository's scenarios.

Each figure comes from enough replications that its 95% intervals are readable; the counts
are :data:`FIGURES`' and the captions in docs/analysis.md state them (a test checks that
they agree; the sweep's caption is in docs/sweeps.md). The runs are written to
results/doc-images/ and take about ten minutes on two cores, and the sweep about as long
again:

    python tools/doc_images.py                  # run and draw everything
    python tools/doc_images.py --reuse          # draw again from the runs already there
    python tools/doc_images.py --small --out /tmp/images   # 2 replications, what tests run
    python tools/doc_images.py --reuse --only sweep-advantage.png   # one figure
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import gridsim
from gridsim.analysis import plots
from gridsim.analysis.results import select_run
from gridsim.experiments.grid import load_experiment
from gridsim.experiments.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Run:
    """A scenario of scenarios/ run with ``replications`` replications."""

    scenario: str
    replications: int


RUNS = {
    "window-search": Run("window-search.yaml", 200),
    "static": Run("coordinated-placement-static.yaml", 100),
    "cloud": Run("cloud-federation-dytss.yaml", 5),
    "sweep": Run("static-queue-over-load.yaml", 20),
}
#: Image -> the run it is drawn from (the replication counts the captions state).
FIGURES = {
    "comparison.png": "window-search",
    "advantage.png": "static",
    "gantt.png": "static",
    "samples-over-time.png": "cloud",
    "sweep-advantage.png": "sweep",
}
GANTT_QUEUE_SIZE = 50
LOAD = "environment.local_load.max_utilisation"


def run(name: str, out: Path, small: bool, reuse: bool) -> gridsim.Results:
    """The results of one of :data:`RUNS` (2 replications when ``small``)."""
    folder = out / name
    if not (reuse and (folder / "metadata.json").exists()):
        spec = RUNS[name]
        text = (ROOT / "scenarios" / spec.scenario).read_text()
        replications = 2 if small else spec.replications
        if small:  # the Gantt chart's queue alone; small queues for the sweep
            sizes = "[8, 16]" if name == "sweep" else f"[{GANTT_QUEUE_SIZE}]"
            text = text.replace("queue_sizes: [50, 100, 150, 200]", f"queue_sizes: {sizes}")
        run_experiment(load_experiment(text), replications=replications,
                       jobs=1 if small else None, out_dir=folder, progress=not small,
                       overwrite=True)  # fmt: skip
    return gridsim.load_results(folder)


def draw(
    images: Path,
    results_folder: Path,
    small: bool = False,
    reuse: bool = False,
    only: list[str] | None = None,
) -> None:
    """Run (or reuse) the runs and write the images of :data:`FIGURES` (or ``only`` those)
    to ``images``."""
    images.mkdir(parents=True, exist_ok=True)
    wanted = only or list(FIGURES)
    results = {
        name: run(name, results_folder, small, reuse)
        for name in RUNS
        if name in {FIGURES[figure] for figure in wanted}
    }
    drawers = {
        "comparison.png": lambda: plots.plot_comparison(results["window-search"].runs, "Q"),
        "advantage.png": lambda: plots.plot_advantage(results["static"].runs, "BFfinish"),
        "gantt.png": lambda: plots.plot_gantt(
            select_run(results["static"].tasks, "CoP", 0, GANTT_QUEUE_SIZE),
            title=f"CoP, static queue of {GANTT_QUEUE_SIZE} jobs on 32 nodes, replication 0",
        ),
        "samples-over-time.png": lambda: plots.plot_samples_over_time(results["cloud"].progress),
        "sweep-advantage.png": lambda: plots.plot_advantage(
            results["sweep"].runs, "BFfinish", over=LOAD, axes=results["sweep"].axes
        ),
    }
    figures = {name: drawers[name]() for name in wanted}
    for name, figure in figures.items():
        figure.savefig(images / name, dpi=90)
        print(f"wrote {images / name}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "doc-images")
    parser.add_argument("--small", action="store_true", help="2 replications per run")
    parser.add_argument("--reuse", action="store_true", help="draw from the runs there")
    parser.add_argument("--only", nargs="+", choices=sorted(FIGURES), help="these figures")
    options = parser.parse_args(argv)
    draw(options.out, options.results, options.small, options.reuse, options.only)


if __name__ == "__main__":
    main()

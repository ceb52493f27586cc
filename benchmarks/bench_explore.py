"""How big an explorer page is and how long a browser takes to draw it, on a whole log.

For one run of a results folder, writes the ``gridsim explore`` page with each renderer
(canvas, the default, and WebGL), then opens each in a fresh headless Chromium several
times, the two renderers interleaved, and reports the medians: the CPU time to build the
page, its size, the time from navigation to the Gantt chart's first render (the page's own
clock, ``tools/chromium.py``), and the time per frame while the view pans. Run it with
``nice`` on a shared machine:

    gridsim run swf-replay --log KTH-SP2-1996-2.1-cln.swf.gz -o results/kth
    nice python benchmarks/bench_explore.py results/kth --policy easy
    nice python benchmarks/bench_explore.py results/hpc2n --policy easy --renderers canvas

Figures measured: docs/analysis.md, "Explorer".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import gridsim
from gridsim.analysis.explore import Timeline, explorer_document
from gridsim.analysis.results import select_run
from gridsim.experiments.kinds import declaration

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import chromium

BACKENDS = ("canvas", "webgl")
#: Views panned: the whole schedule, and 5% and 0.5% of it (rectangles drawn one by one).
ZOOMS = (1.0, 0.05, 0.005)


def build(results: gridsim.Results, policy: str, backend: str, path: Path) -> float:
    """Write the page of ``policy``'s first replication; the CPU seconds it took."""
    from bokeh.embed import file_html
    from bokeh.resources import INLINE

    began = time.process_time()
    jobs = select_run(results.jobs, policy=policy, replication=0, what="jobs")
    kind = declaration(results.kind)
    scenario = results.metadata[0]["scenario_resolved"]
    timeline = Timeline(kind.time_unit, kind.time_origin(scenario))
    document = explorer_document(jobs, policy, timeline,
                                 kind.machine_size(scenario, results.runs), backend)  # fmt: skip
    path.write_text(file_html(document, INLINE, title=policy), encoding="utf-8")
    return time.process_time() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--policy", required=True)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--renderers", nargs="+", choices=BACKENDS, default=list(BACKENDS),
                        help="renderers to measure (WebGL without a GPU is slow)")  # fmt: skip
    args = parser.parse_args(argv)
    backends = tuple(args.renderers)
    reason = chromium.missing()
    if reason:
        sys.exit(f"no browser: {reason}")
    results = gridsim.load_results(args.results)
    folder = Path(tempfile.mkdtemp(prefix="bench-explore-"))
    pages = {backend: folder / f"{backend}.html" for backend in backends}
    built = {backend: build(results, args.policy, backend, pages[backend])
             for backend in backends}  # fmt: skip
    renders: dict[str, list[float]] = {backend: [] for backend in backends}
    frames: dict[tuple[str, float], list[float]] = {}
    for _ in range(args.repetitions):
        for backend in backends:  # interleaved: a slow spell of the machine hits both
            with chromium.browser() as driver:
                driver.set_script_timeout(300)
                renders[backend].append(chromium.open_explorer(driver, pages[backend], 300))
                for zoom in ZOOMS:
                    frames.setdefault((backend, zoom), []).extend(
                        chromium.pan_frames(driver, zoom)[2:]
                    )  # the first frames warm up
    jobs = int(chromium_jobs(pages[backends[0]]))
    print(f"{args.results} {args.policy}: {jobs} jobs drawn, {args.repetitions} repetitions")
    print("renderer  page (MB)  build CPU (s)  first render (s), median [min, max]")
    for backend in backends:
        times = renders[backend]
        print(
            f"{backend:<8}  {pages[backend].stat().st_size / 1e6:9.1f}  {built[backend]:13.2f}  "
            f"{statistics.median(times):.2f} [{min(times):.2f}, {max(times):.2f}]"
        )
    print("renderer  view (share of the schedule)  ms per frame while panning, median [max]")
    for (backend, zoom), times in frames.items():
        print(f"{backend:<8}  {zoom:28g}  {statistics.median(times):.0f} [{max(times):.0f}]")


def chromium_jobs(page: Path) -> int:
    with chromium.browser() as driver:
        chromium.open_explorer(driver, page, 300)
        return int(chromium.explorer(driver, "e.jobs"))


if __name__ == "__main__":
    main()

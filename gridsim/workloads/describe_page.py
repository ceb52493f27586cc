"""A small page of figures describing a workload: ``gridsim workload describe FILE -o DIR``.

Consumes a :class:`~gridsim.workloads.describe.Description` and the workload's jobs;
produces, in a folder, ``workload.png`` (six panels: arrivals per hour of day and per day of
the week, job sizes, the run-time distribution, estimate accuracy, users' shares),
``description.json`` (the numbers) and ``index.md`` (the numbers as text, then the figure).
The figure is returned rather than shown (matplotlib's object interface, no global state).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gridsim.workloads.describe import DAYS, Description, describe_text


def workload_figure(d: Description, jobs: pd.DataFrame) -> Figure:
    """The six panels of the module docstring."""
    figure = Figure(figsize=(13, 7.5), layout="constrained")
    axes = figure.subplots(2, 3)
    hours = axes[0, 0]
    hours.bar(range(24), d.arrivals_per_hour, color="#4c72b0")
    hours.set(title="Arrivals per hour of day", xlabel=f"hour ({d.local_times.split(' (')[0]})",
              ylabel="jobs", xticks=range(0, 24, 3))  # fmt: skip
    days = axes[0, 1]
    if d.arrivals_per_weekday is not None:
        days.bar(DAYS, d.arrivals_per_weekday, color="#4c72b0")
    else:
        days.text(0.5, 0.5, "no start date in the log", ha="center", va="center")
    days.set(title="Arrivals per day of week", ylabel="jobs")
    sizes = jobs["processors"].to_numpy(np.float64)
    exponents = np.arange(0, int(np.ceil(np.log2(max(sizes.max(), 1)))) + 2)
    size_axes = axes[0, 2]
    size_axes.hist(sizes, bins=2.0**exponents - 0.5, color="#55a868")
    size_axes.set(title="Job size", xscale="log", xlabel="processors", ylabel="jobs")
    run_time = np.sort(jobs["run_time"].to_numpy(np.float64))
    cdf = axes[1, 0]
    cdf.plot(run_time, np.arange(1, len(run_time) + 1) / max(len(run_time), 1), color="#c44e52")
    cdf.set(title="Run time", xscale="log", xlabel="s", ylabel="share of jobs at most")
    accuracy = np.minimum(jobs["run_time"] / jobs["estimate"], 1.0)
    accuracy_axes = axes[1, 1]
    accuracy_axes.hist(accuracy, bins=np.linspace(0, 1, 21), color="#8172b2")
    accuracy_axes.set(title="Estimate accuracy (run time / estimate)", xlabel="accuracy",
                      ylabel="jobs")  # fmt: skip
    users = axes[1, 2]
    top = d.top_users
    positions = np.arange(len(top))
    users.barh(positions - 0.2, [u["job_share"] for u in top], 0.4, label="jobs")
    users.barh(positions + 0.2, [u["work_share"] for u in top], 0.4, label="work")
    users.set(title=f"Top users ({d.users} in all)", yticks=positions,
              yticklabels=[str(u["user"]) for u in top], xlabel="share")  # fmt: skip
    users.invert_yaxis()
    users.legend()
    figure.suptitle(f"{Path(d.source).name}: {d.jobs} jobs")
    return figure


def write_page(d: Description, jobs: pd.DataFrame, folder: Path) -> Path:
    """Write the page into ``folder`` (created if needed); returns ``index.md``'s path."""
    folder.mkdir(parents=True, exist_ok=True)
    workload_figure(d, jobs).savefig(folder / "workload.png", dpi=110)
    (folder / "description.json").write_text(json.dumps(d.to_dict(), indent=2) + "\n")
    index = folder / "index.md"
    index.write_text(f"# {Path(d.source).name}\n\n```\n{describe_text(d)}\n```\n\n"
                     "![the workload](workload.png)\n")  # fmt: skip
    return index

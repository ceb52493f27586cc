"""A report of results folders: Markdown and HTML with tables and figures.

Consumes results folders (docs/results.md); produces ``report.md``, ``report.html`` and the
figures as PNG files beside them in one output folder. Folders of the same scenario kind are
combined into one comparison (:func:`gridsim.analysis.results.load_results`); each kind gets
its own section. For each section:

* means with 95% Student-t intervals per policy (and queue size or goal);
* paired comparisons of every policy against the baseline (the scenario's ``baseline``, else
  the first policy, as ``gridsim run`` and the figures), on the same replications
  (:func:`gridsim.analysis.stats.paired_comparison`): mean difference ``policy - baseline``,
  its 95% interval and the number of replications paired;
* figures: comparison bars; for job flows the advantage curve over the queue size and the
  Gantt chart of one run; for cloud runs the samples over time.

The document is built once as a list of blocks and rendered twice, so the Markdown and the
HTML say the same thing.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd

from gridsim.analysis import plots
from gridsim.analysis.results import (
    Results,
    ResultsError,
    has_runs,
    load_results,
    read_manifest,
    select_run,
)
from gridsim.analysis.stats import comparison_keys, paired_against_baseline, policy_means
from gridsim.errors import writing

#: Metrics in the means table, per scenario kind.
REPORT_METRICS = {
    "jobflow": ["mean_finish", "makespan", "mean_wait", "mean_bounded_slowdown", "mean_cost",
                "utilisation"],
    "window_search": ["start", "finish", "cost", "Q", "L_minSum", "L_maxSum"],
    "batch": ["total_time", "total_cost", "alternatives_per_job"],
    "cloud": ["makespan_s", "samples_completed", "failed_tasks", "mean_pilots"],
}  # fmt: skip
#: Metrics compared pair by pair against the baseline.
PAIRED_METRICS = {
    "jobflow": ["mean_finish", "mean_cost"],
    "window_search": ["finish", "cost", "Q"],
    "batch": ["total_time", "total_cost"],
    "cloud": ["makespan_s"],
}
#: Metrics drawn as comparison bars.
BAR_METRICS = {
    "jobflow": ["mean_finish"],
    "window_search": ["Q", "cost"],
    "batch": ["total_time", "total_cost"],
    "cloud": ["makespan_s"],
}


#: Metric of the advantage curves over each swept field, per scenario kind.
ADVANTAGE_METRICS = {"jobflow": "mean_finish", "window_search": "cost", "cloud": "makespan_s"}


def advantage_fields(runs: pd.DataFrame, axes: list[str] | None) -> list[str]:
    """Swept numeric fields with several values: one advantage figure over each."""
    fields = comparison_keys(runs, axes)
    return [
        f for f in fields
        if f not in ("run", "goal") and pd.api.types.is_numeric_dtype(runs[f])
        and runs[f].dropna().nunique() > 1
    ]  # fmt: skip


def first_point(table: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """The rows of the grid's first point (every swept field at its first value)."""
    for axis in axes:
        if axis in table.columns and axis != "queue_size":
            first = table[axis].iloc[0]
            table = table[table[axis].isna() if pd.isna(first) else table[axis] == first]
    return table


@dataclass(frozen=True)
class Block:
    """One piece of the document: ``heading``, ``text``, ``table`` or ``image``."""

    kind: str
    content: object
    level: int = 2


def write_report(folders: list[Path], out_dir: Path) -> Path:
    """Write ``report.md``, ``report.html`` and the figures to ``out_dir``; return the
    Markdown path."""
    by_kind: dict[str, list[Path]] = {}
    manifests = {Path(folder): read_manifest(Path(folder)) for folder in folders}
    for folder, manifest in manifests.items():
        _check_runs_table(folder, manifest)
        by_kind.setdefault(str(manifest.get("kind")), []).append(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    blocks = [Block("heading", "gridsim report", 1)]
    for kind, paths in by_kind.items():
        empty = [path for path in paths if not has_runs(path)]
        for path in empty:  # a run stopped before its first replication finished
            manifest = manifests[path]
            error = f": {manifest['error']}" if manifest.get("error") else ""
            blocks += [Block("heading", f"{kind}: {manifest.get('scenario')}"),
                       Block("text", f"`{path}`: no replication finished (status "
                                     f"{manifest.get('status')}{error}).")]  # fmt: skip
        if len(empty) < len(paths):
            try:
                results = load_results(*[p for p in paths if p not in empty])
            except ValueError as error:  # folders of one experiment that hold a cell twice
                raise ResultsError(str(error)) from None
            blocks += section(results, out_dir)
    for name, text in (
        ("report.md", render_markdown(blocks)),
        ("report.html", render_html(blocks)),
    ):
        with writing(out_dir / name):
            (out_dir / name).write_text(text)
    return out_dir / "report.md"


def _check_runs_table(folder: Path, manifest: dict[str, Any]) -> None:
    """ResultsError when a result store's runs table, which every report section reads, is
    not a folder, or is gone though ``metadata.json`` records cells done (a report of such a
    folder would say that nothing finished)."""
    from gridsim.experiments.store import is_store

    runs = folder / "runs"
    if not is_store(manifest) or runs.is_dir():
        return
    if runs.exists():
        raise ResultsError(f"{runs}: not a folder (the runs table is a folder of chunk files)")
    done = sum(last - first + 1 for cells in manifest.get("done", {}).values()
               for first, last in cells)  # fmt: skip
    if done:
        raise ResultsError(f"{runs}: missing, though {folder / 'metadata.json'} records {done} "
                           f"cells done; running the scenario into {folder} again recomputes "
                           "them")  # fmt: skip


def _comparable(kind: str, runs: pd.DataFrame) -> pd.DataFrame:
    """Batch cycles count only when every job was served under every policy, and totals are
    compared on the cycles where every policy met the goal's limit (docs/batch.md)."""
    if kind != "batch":
        return runs
    keys = [*(["run"] if "run" in runs.columns else []), "replication"]
    runs = runs[runs.groupby(keys)["all_jobs_served"].transform("all")]
    feasible = runs.groupby([*keys, "goal"])["feasible"].transform("all")
    return runs[feasible]


def section(results: Results, out_dir: Path) -> list[Block]:
    """The blocks describing one kind's results (figures are written to ``out_dir``)."""
    kind = results.kind
    runs = _comparable(kind, results.runs)
    keys = comparison_keys(runs, results.axes or None)
    baseline = results.baseline
    blocks = [Block("heading", f"{kind}: {', '.join(m['scenario'] for m in results.metadata)}")]
    for meta in results.metadata:
        blocks.append(Block("text", (
            f"`{meta['folder']}`: scenario {meta['scenario']}, seed {meta['seed']}, "
            f"{meta['replications_completed']} of {meta['replications_requested']} "
            f"replications ({meta['status']}), gridsim {meta['gridsim_version']}, "
            f"commit {str(meta.get('git_commit') or 'unknown')[:10]}."
        )))  # fmt: skip
    blocks += not_done(results)
    if runs.empty:
        why = " (a job without an alternative, or no combination meeting the goal's limit, in " \
              "every cycle)" if kind == "batch" else ""  # fmt: skip
        return [*blocks, Block("text", f"No run can be compared{why}.")]
    metrics = [m for m in REPORT_METRICS.get(kind, []) if m in runs.columns]
    blocks += [Block("heading", "Means with 95% intervals", 3),
               Block("table", means_table(runs, metrics, keys))]  # fmt: skip
    paired = paired_against_baseline(runs, PAIRED_METRICS.get(kind, metrics[:1]), baseline, keys)
    if not paired.empty:
        blocks += [
            Block("heading", f"Paired differences against {baseline}", 3),
            Block("text", (
                f"Each policy minus {baseline} on the same replications (common random "
                "numbers): mean difference, its 95% Student-t interval, and the number of "
                "replications paired; relative difference is the mean of policy / baseline - 1."
            )),
            Block("table", paired_table(paired, keys)),
        ]  # fmt: skip
    blocks += [Block("heading", "Figures", 3), *figures(results, runs, kind, baseline, out_dir)]
    return blocks


def not_done(results: Results) -> list[Block]:
    """What the runs could not do, per policy (``rejections`` of each folder's metadata)."""
    from gridsim.experiments.rejections import describe

    lines = [f"`{meta['folder']}`: {describe(row)}." if len(results.metadata) > 1
             else f"{describe(row)}."
             for meta in results.metadata for row in meta.get("rejections") or []]  # fmt: skip
    if not lines:
        return []
    return [Block("heading", "Not done", 3), *(Block("text", line) for line in lines)]


def _cell(mean: float, half: float) -> str:
    if math.isnan(mean):
        return "-"
    return f"{mean:.4g}" if math.isnan(half) else f"{mean:.4g} ± {half:.2g}"


def means_table(runs: pd.DataFrame, metrics: list[str], keys: list[str]) -> pd.DataFrame:
    """One row per group and policy: replications, then ``mean ± half-width`` per metric."""
    summary = policy_means(runs, metrics, keys)
    table = summary[[*keys, "policy", "runs"]].rename(columns={"runs": "replications"})
    for metric in metrics:
        table[metric] = [
            _cell(m, h)
            for m, h in zip(summary[f"{metric}_mean"], summary[f"{metric}_ci95"], strict=True)
        ]
    return table


def paired_table(paired: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The paired comparisons as text: difference, interval ``[low, high]``, replications."""
    rows = []
    for row in (SimpleNamespace(**r) for r in paired.to_dict("records")):
        mean, half = row.difference_mean, row.difference_ci95
        interval = "-" if math.isnan(half) else f"[{mean - half:.4g}, {mean + half:.4g}]"
        relative = "-" if math.isnan(row.relative_mean) else (
            f"{100 * row.relative_mean:+.2f}%"
            + ("" if math.isnan(row.relative_ci95) else f" ± {100 * row.relative_ci95:.2f}%")
        )  # fmt: skip
        rows.append({
            **{key: vars(row)[key] for key in keys},
            "metric": row.metric,
            "policy": row.policy,
            "baseline": row.baseline,
            "mean difference": f"{mean:+.4g}",
            "95% interval": interval,
            "replications": int(row.pairs),
            "relative": relative,
        })  # fmt: skip
    return pd.DataFrame(rows)


def figures(
    results: Results, runs: pd.DataFrame, kind: str, baseline: str, out_dir: Path
) -> list[Block]:
    """Draw this kind's figures into ``out_dir``; return their image blocks."""
    prefix = kind.replace("_", "-")
    drawn: list[tuple[str, object, str]] = []
    for metric in BAR_METRICS.get(kind, []):
        if metric in runs.columns and runs[metric].notna().any():
            drawn.append((f"{prefix}-{metric}.png", plots.plot_comparison(runs, metric),
                          f"{metric} per policy, mean and 95% interval"))  # fmt: skip
    if "run" not in runs.columns and kind in ADVANTAGE_METRICS:
        reference = baseline  # the scenario's (BFfinish in the paper's Fig. 3-4), else the first
        metric = ADVANTAGE_METRICS[kind]
        axes = results.axes or None
        for over in advantage_fields(runs, axes):
            drawn.append((f"{prefix}-advantage-{over.replace('.', '-')}.png"
                          if over != "queue_size" else f"{prefix}-advantage.png",
                          plots.plot_advantage(runs, reference, metric, over, axes=axes),
                          f"{metric} advantage over {reference} by {over}"))  # fmt: skip
    if kind == "jobflow" and not results.tasks.empty:
        tasks = first_point(results.tasks, results.axes)
        first = {"policy": baseline, "replication": int(tasks["replication"].min())}
        if "queue_size" in tasks.columns:
            first["queue_size"] = int(tasks["queue_size"].min())
        if "run" in tasks.columns:
            first["run"] = str(tasks["run"].iloc[0])
        chosen = select_run(tasks, **first, what="tasks")
        title = ", ".join(f"{k} {v}" for k, v in first.items())
        drawn.append((f"{prefix}-gantt.png", plots.plot_gantt(chosen, title=title),
                      f"Gantt chart: {title}"))  # fmt: skip
    if kind == "cloud" and not results.progress.empty:
        progress = results.progress
        progress = progress[progress["replication"] == progress["replication"].min()]
        drawn.append((f"{prefix}-samples-over-time.png",
                      plots.plot_samples_over_time(progress),
                      "samples completed and pilots over time, first replication"))  # fmt: skip
    blocks = []
    for name, figure, caption in drawn:
        with writing(out_dir / name):
            figure.savefig(out_dir / name, dpi=110)
        blocks.append(Block("image", (name, caption)))
    return blocks


def _format(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def render_markdown(blocks: list[Block]) -> str:
    lines: list[str] = []
    for block in blocks:
        if block.kind == "heading":
            lines += ["#" * block.level + " " + str(block.content), ""]
        elif block.kind == "text":
            lines += [str(block.content), ""]
        elif block.kind == "table":
            table = block.content
            assert isinstance(table, pd.DataFrame)
            lines.append("| " + " | ".join(map(str, table.columns)) + " |")
            lines.append("|" + "---|" * len(table.columns))
            for row in table.itertuples(index=False):
                lines.append("| " + " | ".join(_format(v) for v in row) + " |")
            lines.append("")
        elif block.kind == "image":
            name, caption = block.content  # type: ignore[misc]
            lines += [f"![{caption}]({name})", ""]
    return "\n".join(lines)


_STYLE = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .6em}
th{background:#eee}td{text-align:right}img{max-width:100%}figcaption{color:#444}"""


def render_html(blocks: list[Block]) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>gridsim report</title>", f"<style>{_STYLE}</style></head><body>"]  # fmt: skip
    for block in blocks:
        if block.kind == "heading":
            parts.append(f"<h{block.level}>{html.escape(str(block.content))}</h{block.level}>")
        elif block.kind == "text":
            parts.append(f"<p>{html.escape(str(block.content)).replace('`', '')}</p>")
        elif block.kind == "table":
            table = block.content
            assert isinstance(table, pd.DataFrame)
            head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
            body = "".join(
                "<tr>" + "".join(f"<td>{html.escape(_format(v))}</td>" for v in row) + "</tr>"
                for row in table.itertuples(index=False)
            )
            parts.append(f"<table><tr>{head}</tr>{body}</table>")
        elif block.kind == "image":
            name, caption = block.content  # type: ignore[misc]
            parts.append(
                f'<figure><img src="{html.escape(name)}" alt="{html.escape(caption)}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>"
            )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"

"""A report of results folders: Markdown and styled HTML with tables and figures.

Consumes results folders (docs/results.md); produces ``report.md``, ``report.html`` and the
figures as PNG files beside them in one output folder, and for kinds whose results the
explorer reads, one interactive schedule page per policy (``explore-<policy>.html``,
:mod:`gridsim.analysis.explore`; skipped, saying so, without Bokeh). Folders of the same
scenario kind are combined into one comparison (:func:`gridsim.analysis.results.load_results`);
each kind gets its own section, built from what its declaration lists
(:class:`~gridsim.experiments.kinds.KindDeclaration`):

* means with 95% Student-t intervals per policy (and point of a sweep, queue size or goal);
* paired comparisons of every policy against the baseline (the scenario's ``baseline``, else
  the first policy, as ``gridsim run`` and the figures), on the same replications
  (:func:`gridsim.analysis.stats.paired_comparison`): mean difference ``policy - baseline``,
  its 95% interval and the number of replications paired, one collapsible group per point;
* figures (:mod:`gridsim.analysis.figures`): comparison bars, advantage curves over swept
  fields, and the kind's schedule figures -- Gantt chart, utilisation and queue length over
  time, distributions of wait and bounded slowdown, wait by job size and by user;
* for runs on nodes with cores, memory and GPUs, a section of their own
  (:mod:`gridsim.analysis.report_resources`): per-resource metrics, waits by resource class,
  utilisation of every resource and stranded cores over time.

The document is built once as a list of blocks and rendered twice
(:mod:`gridsim.analysis.report_render`), so the Markdown and the HTML say the same thing.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd

from gridsim.analysis import figures as report_figures
from gridsim.analysis import report_resources
from gridsim.analysis.report_render import (
    Block,
    format_mean,
    format_number,
    render_html,
    render_markdown,
)
from gridsim.analysis.resource_metrics import LABELS as RESOURCE_LABELS
from gridsim.analysis.results import (
    Results,
    ResultsError,
    has_runs,
    load_results,
    read_manifest,
)
from gridsim.analysis.stats import comparison_keys, paired_against_baseline, policy_means
from gridsim.errors import writing
from gridsim.experiments.kinds import KindDeclaration, declaration


def write_report(folders: list[Path], out_dir: Path, explore: bool = True) -> Path:
    """Write ``report.md``, ``report.html``, the figures and (``explore``) the explorer pages
    to ``out_dir``; return the Markdown path."""
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
            blocks += section(results, out_dir, explore=explore)
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


def section(results: Results, out_dir: Path, explore: bool = True) -> list[Block]:
    """The blocks describing one kind's results (figures are written to ``out_dir``)."""
    kind = declaration(results.kind)
    runs = kind.comparable_runs(results.runs)
    if "comparable" in runs.columns:
        runs = runs[runs["comparable"]]
    keys = [k for k in comparison_keys(runs, results.axes or None) if k != "policy"]
    baseline = str(results.baseline)
    names = ", ".join(m["scenario"] for m in results.metadata)
    blocks = [Block("heading", f"{results.kind}: {names}")]
    for meta in results.metadata:
        blocks.append(Block("text", (
            f"`{meta['folder']}`: scenario {meta['scenario']}, seed {meta['seed']}, "
            f"{meta['replications_completed']} of {meta['replications_requested']} "
            f"replications ({meta['status']}), gridsim {meta['gridsim_version']}, "
            f"commit {str(meta.get('git_commit') or 'unknown')[:10]}."
        )))  # fmt: skip
    blocks += not_done(results)
    if runs.empty:
        cycles = "comparable" in kind.comparable_runs(results.runs).columns
        why = (" (a job without an alternative, or no combination meeting the goal's limit, "
               "in every cycle)") if cycles else ""  # fmt: skip
        return [*blocks, Block("text", f"No run can be compared{why}.")]
    metrics = [m for m in kind.report_metrics if m in runs.columns]
    blocks += [Block("heading", "Means with 95% intervals", 3),
               Block("text", "Mean over replications ± the half-width of its 95% Student-t "
                             "interval (none when every replication gives the same number, "
                             "as a log replay does)."),
               Block("table", means_table(runs, metrics, keys, kind))]  # fmt: skip
    blocks += paired_blocks(runs, kind, baseline, keys)
    prefix = results.kind.replace("_", "-")
    drawn = report_figures.run_figures(results, runs, kind, baseline, prefix)
    drawn += report_figures.schedule_figures(results, kind, baseline, prefix)
    blocks += [Block("heading", "Figures", 3), *write_figures(drawn, out_dir)]
    blocks += resource_blocks(results, runs, kind, keys, out_dir, prefix)
    if explore and "explore" in kind.trace_commands and not results.jobs.empty:
        blocks += explorer_pages(results, out_dir, prefix)
    return blocks


def resource_blocks(
    results: Results, runs: pd.DataFrame, kind: KindDeclaration, keys: list[str],
    out_dir: Path, prefix: str,
) -> list[Block]:  # fmt: skip
    """Cores, memory and GPUs (:mod:`gridsim.analysis.report_resources`): only for runs on
    nodes that declare them."""
    data = report_resources.resource_runs(results, kind, prefix)
    if data is None:
        return []
    metrics = [m for m in RESOURCE_LABELS if m in runs.columns and runs[m].notna().any()]
    return [Block("heading", "Cores, memory and GPUs", 3),
            Block("text", "Utilisation of every resource (amount-time held over capacity x "
                          "the span from the first submission to the last end), stranded "
                          "cores (free cores on nodes whose free memory is below one core's "
                          "share or whose GPUs are all held, time-average) and mean waits by "
                          "resource class, over replications ± the half-width of the 95% "
                          "interval:"),
            Block("table", means_table(runs, metrics, keys, kind)),
            Block("text", f"Waits by resource class: {data.described}."),
            Block("table", report_resources.wait_by_class_table(data)),
            *write_figures(report_resources.resource_figures(data), out_dir)]  # fmt: skip


def paired_blocks(
    runs: pd.DataFrame, kind: KindDeclaration, baseline: str, keys: list[str]
) -> list[Block]:
    """The paired differences against the baseline, one collapsible group per point."""
    paired = paired_against_baseline(runs, kind.paired_metrics, baseline, keys)
    if paired.empty:
        return []
    blocks = [
        Block("heading", f"Paired differences against {baseline}", 3),
        Block("text", (
            f"Each policy minus {baseline} on the same replications (common random "
            "numbers): mean difference, its 95% Student-t interval, and the number of "
            "replications paired; relative difference is the mean of policy / baseline - 1."
        )),
    ]  # fmt: skip
    if not keys:
        return [*blocks, Block("table", paired_table(paired, []))]
    for values, part in paired.groupby(keys, sort=False, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        title = ", ".join(f"{key} {value}" for key, value in zip(keys, values, strict=True))
        blocks.append(Block("group", (title, [Block("table", paired_table(part, []))]), 4))
    return blocks


def write_figures(drawn: list[report_figures.Drawn], out_dir: Path) -> list[Block]:
    """Write the figures into ``out_dir``; their image blocks."""
    blocks = []
    for figure in drawn:
        with writing(out_dir / figure.name):
            figure.figure.savefig(out_dir / figure.name, dpi=110)
        blocks.append(Block("image", (figure.name, figure.caption)))
    return blocks


def explorer_pages(results: Results, out_dir: Path, prefix: str) -> list[Block]:
    """One explorer page per policy of the figures' run, linked from the report."""
    try:
        from gridsim.analysis.explore import write_explorer
    except ImportError:
        return [Block("text", "Interactive schedules: install the explore extra "
                              "(`pip install 'gridsim-sched[explore]'`) and rerun the report "
                              "for one explorer page per policy.")]  # fmt: skip
    chosen = report_figures.run_selection(results)
    described = report_figures.describe_selection(chosen)
    blocks = [Block("heading", "Interactive schedules", 3),
              Block("text", "One page per policy (zoom, pan, hover a job, click it for the "
                            f"jobs it waited behind): {described}.")]  # fmt: skip
    for policy in results.policies:
        name = f"{prefix}-explore-{_file_name(policy)}.html"
        try:
            write_explorer(results, out_dir / name, policy=policy, selection=chosen)
        except ValueError as error:  # no job of the policy ran there, or nodes not recorded
            blocks.append(Block("text", f"{policy}: no page ({error})."))
            continue
        blocks.append(Block("link", (name, f"{policy}: {name}")))
    return blocks


def _file_name(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in label).strip("-")


def not_done(results: Results) -> list[Block]:
    """What the runs could not do, per policy (``rejections`` of each folder's metadata)."""
    from gridsim.experiments.rejections import describe

    lines = [f"`{meta['folder']}`: {describe(row)}." if len(results.metadata) > 1
             else f"{describe(row)}."
             for meta in results.metadata for row in meta.get("rejections") or []]  # fmt: skip
    if not lines:
        return []
    return [Block("heading", "Not done", 3), *(Block("text", line) for line in lines)]


def means_table(
    runs: pd.DataFrame, metrics: list[str], keys: list[str], kind: KindDeclaration | None = None
) -> pd.DataFrame:
    """One row per group and policy: replications, then ``mean ± half-width`` per metric
    (headed by the metric's label when the kind gives one)."""
    summary = policy_means(runs, metrics, keys)
    table = summary[[*keys, "policy", "runs"]].rename(columns={"runs": "replications"})
    labels = kind.labels if kind is not None else {}
    for metric in metrics:
        table[labels.get(metric, metric)] = [
            format_mean(m, h)
            for m, h in zip(summary[f"{metric}_mean"], summary[f"{metric}_ci95"], strict=True)
        ]
    return table


def paired_table(paired: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The paired comparisons as text: difference, interval ``[low, high]``, replications."""
    rows = []
    for row in (SimpleNamespace(**r) for r in paired.to_dict("records")):
        mean, half = row.difference_mean, row.difference_ci95
        interval = "-" if math.isnan(half) else (
            f"[{format_number(mean - half)}, {format_number(mean + half)}]")  # fmt: skip
        relative = "-" if math.isnan(row.relative_mean) else (
            f"{100 * row.relative_mean:+.2f}%"
            + ("" if math.isnan(row.relative_ci95) else f" ± {100 * row.relative_ci95:.2f}%")
        )  # fmt: skip
        rows.append({
            **{key: vars(row)[key] for key in keys},
            "metric": row.metric,
            "policy": row.policy,
            "baseline": row.baseline,
            "mean difference": ("+" if mean > 0 else "") + format_number(mean),
            "95% interval": interval,
            "replications": int(row.pairs),
            "relative": relative,
        })  # fmt: skip
    return pd.DataFrame(rows)

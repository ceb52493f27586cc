"""The report's document: blocks, numbers formatted for their size, Markdown and HTML.

Consumes the blocks :mod:`gridsim.analysis.report` builds; produces ``report.md`` and a
styled, self-contained ``report.html`` (figures beside it) that say the same thing: tables
with right-aligned numbers, paired comparisons grouped by point in collapsible sections,
figures with their captions.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Block:
    """One piece of the document: ``heading``, ``text``, ``table``, ``image`` (file name,
    caption), ``link`` (target, text) or ``group`` (title, blocks: collapsible in HTML)."""

    kind: str
    content: object
    level: int = 2


def format_number(value: float, decimals: int | None = None) -> str:
    """A number as a reader wants it: 4 significant digits, thousands grouped, no exponent
    between 1e-3 and 1e9 (``decimals`` fixes the digits after the point instead)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    size = abs(value)
    if size and (size >= 1e9 or size < 1e-3):
        return f"{value:.3e}"
    if decimals is not None:
        return f"{value:,.{max(0, decimals)}f}"
    digits = 0 if size == 0 else math.floor(math.log10(size))
    text = f"{value:,.{max(0, 3 - digits)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_mean(mean: float, half: float) -> str:
    """``mean ± half``: the half-width to two significant digits, the mean to the same last
    digit (``934 ± 260`` reads as 930 ± 260), ``mean`` alone without an interval."""
    if math.isnan(mean):
        return "-"
    if math.isnan(half) or math.isinf(half):
        return format_number(mean)
    if half == 0:
        return f"{format_number(mean)} ± 0"
    decimals = 1 - math.floor(math.log10(half))
    size = max(abs(mean), half)
    if size >= 1e9 or size < 1e-3:
        return f"{mean:.3e} ± {half:.2g}"
    shown = max(0, decimals)
    return (
        f"{format_number(round(mean, decimals), shown)} ± "
        f"{format_number(round(half, decimals), shown)}"
    )


def format_cell(value: object) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return format_number(value)
    return str(value)


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
                lines.append("| " + " | ".join(format_cell(v) for v in row) + " |")
            lines.append("")
        elif block.kind == "image":
            name, caption = block.content  # type: ignore[misc]
            lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
        elif block.kind == "link":
            target, text = block.content  # type: ignore[misc]
            lines += [f"- [{text}]({target})", ""]
        elif block.kind == "group":
            title, inner = block.content  # type: ignore[misc]
            lines += [f"{'#' * block.level} {title}", "", render_markdown(inner)]
    return "\n".join(lines)


STYLE = """
:root{--ink:#1d2330;--muted:#5b6476;--line:#d9dee8;--head:#f3f5f9;--accent:#3949ab}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);
max-width:1180px;margin:2em auto;padding:0 1.2em}
h1{font-size:1.7em;border-bottom:3px solid var(--accent);padding-bottom:.2em}
h2{font-size:1.35em;margin-top:2em;border-bottom:1px solid var(--line)}
h3{font-size:1.1em;margin-top:1.6em;color:var(--accent)}
p{max-width:80ch}code{background:var(--head);padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;margin:.8em 0 1.2em;font-size:.9em}
th,td{border-bottom:1px solid var(--line);padding:.3em .7em;white-space:nowrap}
th{background:var(--head);text-align:left;position:sticky;top:0}
td.number{text-align:right;font-variant-numeric:tabular-nums}
tr:hover td{background:#f8f9fc}
details{border:1px solid var(--line);border-radius:6px;margin:.5em 0;padding:.2em .8em}
details[open]{padding-bottom:.6em}summary{cursor:pointer;font-weight:600;padding:.3em 0}
figure{margin:1.5em 0;padding:.8em;border:1px solid var(--line);border-radius:6px}
figure img{max-width:100%}figcaption{color:var(--muted);font-size:.9em;margin-top:.4em}
ul.links{padding-left:1.2em}
"""


def _is_number(text: str) -> bool:
    stripped = text.replace(",", "").replace("±", " ").replace("%", "").replace("+", "")
    parts = stripped.replace("[", " ").replace("]", " ").split()
    if not parts:
        return False
    try:
        [float(part) for part in parts]
    except ValueError:
        return text == "-"
    return True


def _html_table(table: pd.DataFrame) -> list[str]:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    parts = [f"<table><thead><tr>{head}</tr></thead><tbody>"]
    for row in table.itertuples(index=False):
        cells = []
        for value in row:
            text = format_cell(value)
            css = ' class="number"' if _is_number(text) else ""
            cells.append(f"<td{css}>{html.escape(text)}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return parts


def _html_blocks(blocks: list[Block]) -> list[str]:
    parts: list[str] = []
    links: list[str] = []
    for block in blocks:
        if block.kind != "link" and links:
            parts += ['<ul class="links">', *links, "</ul>"]
            links = []
        if block.kind == "heading":
            level = min(block.level, 6)
            parts.append(f"<h{level}>{html.escape(str(block.content))}</h{level}>")
        elif block.kind == "text":
            parts.append(f"<p>{_inline_code(str(block.content))}</p>")
        elif block.kind == "table":
            assert isinstance(block.content, pd.DataFrame)
            parts += _html_table(block.content)
        elif block.kind == "image":
            name, caption = block.content  # type: ignore[misc]
            parts.append(f'<figure><img src="{html.escape(name)}" alt="{html.escape(caption)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")  # fmt: skip
        elif block.kind == "link":
            target, text = block.content  # type: ignore[misc]
            links.append(f'<li><a href="{html.escape(target)}">{html.escape(text)}</a></li>')
        elif block.kind == "group":
            title, inner = block.content  # type: ignore[misc]
            parts += [f"<details open><summary>{html.escape(title)}</summary>",
                      *_html_blocks(inner), "</details>"]  # fmt: skip
    if links:
        parts += ['<ul class="links">', *links, "</ul>"]
    return parts


def _inline_code(text: str) -> str:
    """Text with ``code`` spans (backquotes) as <code>, everything escaped."""
    pieces = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


def render_html(blocks: list[Block]) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>gridsim report</title>", f"<style>{STYLE}</style></head><body>",
             *_html_blocks(blocks), "</body></html>"]  # fmt: skip
    return "\n".join(parts) + "\n"

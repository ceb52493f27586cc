"""Write docs/errors.md: every bad input of the battery and the one line gridsim prints.

The cases live in ``tests/bad_inputs.py``; ``tests/test_bad_inputs.py`` runs them and checks
that each line printed is the one listed here. Run this after changing a case or a message:

    python tools/render_errors_doc.py
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from itertools import groupby
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
PAGE = REPOSITORY / "docs" / "errors.md"

INTRODUCTION = """\
# Error messages

Every input gridsim cannot use ends the command with exit code 2 and one line on standard
error, `gridsim: error: <where>: <what is wrong>`, naming the file and the field (a scenario),
the file and the line (a workload log), or the option (the command line). Nothing is written
and no results folder is touched: a scenario is checked, and a log read, before anything
runs; a scenario that could never give a result is refused then too (docs/model.md,
"Feasibility checks"). What a run can only find out while running (jobs wider than the
machine, windows not found) is counted under its summary instead.

A bug in gridsim ends with exit code 1 and one line,
`gridsim: internal error (a bug, please report it): <error>; traceback in <file>`, the full
traceback written to that file in the temporary folder; `gridsim --debug COMMAND ...` (or
`gridsim run --debug`) prints it before that line, for any command. Ctrl-C ends with exit code 130,
keeping the replications that finished (run the same command to resume).

Scenario files are YAML 1.1 read strictly (README, "Using it"): numbers in exponent form
(`1e3`) are numbers, a key given twice is an error, and `true` or `"10"` where a number is
expected, a number where `true`/`false` is, `.inf` and `.nan` are refused; aliases (`*name`)
may expand a scenario to at most 1,000,000 values (nine levels of nine repeats would be
hundreds of millions, which every later check would walk for hours).

A results folder whose `metadata.json` was edited by hand or whose chunk files are damaged
is named the same way, file and field, by every command that reads it (docs/results.md);
`gridsim run` into it recomputes the damaged chunks. No command writes into a results folder
it was not asked to run into, or mixes results into a folder of other files.

The list below is the test battery of `tests/bad_inputs.py`, run from a folder holding the
scenario `s.yaml`, the log `log.swf` and two results folders (`results/tiny`, a window
search; `results/flow`, a job flow), the "results folder" cases first damaging or editing a
file of one of them; each line is checked by `tests/test_bad_inputs.py`, which also checks
that the results folders are unchanged byte for byte (regenerate this page with
`python tools/render_errors_doc.py`).
"""


def main() -> None:
    sys.path.insert(0, str(REPOSITORY / "tests"))
    from bad_inputs import CASES, as_code, make_results, prepare, run_case

    lines, messages = [INTRODUCTION], {}
    with tempfile.TemporaryDirectory() as base:
        results_base = Path(base) / "made"
        results_base.mkdir()
        make_results(results_base)
        for index, case in enumerate(CASES):
            folder = Path(base) / f"case-{index}"
            folder.mkdir()
            prepare(case, results_base / "results", folder)
            outcome = run_case(case, folder)
            messages[case.id] = outcome.stderr.strip()
    for group, cases in groupby(CASES, key=lambda case: case.group):
        lines += [f"\n## {group}\n", "| input | command | message |", "|---|---|---|"]
        for case in cases:
            command = as_code(shlex.join(("gridsim", *case.args)))
            lines.append(f"| {case.what} | {command} | {as_code(messages[case.id])} |")
    PAGE.write_text("\n".join(lines) + "\n")
    print(f"wrote {PAGE.relative_to(REPOSITORY)} ({len(CASES)} inputs)")


if __name__ == "__main__":
    main()

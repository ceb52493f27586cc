"""Tables built and summarised without pandas (gridsim.analysis.tables) against pandas itself.

Arrow tables from columns or rows against ``pa.Table.from_pandas`` of the DataFrame they would
make; CSV text against ``DataFrame.to_csv``; the summaries, paired comparisons and rejection
counts of either table type against the pandas implementations they replace (kept here as
the reference: ``groupby`` and ``pivot_table`` with ``sort=False, dropna=False``).
"""

import math

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gridsim.analysis.stats import mean_interval, paired_comparison, summarise_by
from gridsim.analysis.tables import (
    arrow_columns,
    arrow_rows,
    column,
    csv_text,
    rows,
    to_arrow,
)
from gridsim.experiments.rejections import Count, rejection_rows

FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0.1, 1e16, 1e-5, 123456789012.0, -0.0, 2.5e-7]),
)
TEXT = st.text(alphabet='ab,"\n é', max_size=4)


def same_arrow(built: pa.Table, frame: pd.DataFrame) -> None:
    expected = pa.Table.from_pandas(frame, preserve_index=False)
    assert built.schema.remove_metadata() == expected.schema.remove_metadata()
    assert built.equals(expected)


@settings(max_examples=examples(60))
@given(st.integers(0, 6).flatmap(lambda n: st.tuples(
    st.lists(FLOATS, min_size=n, max_size=n),
    st.lists(st.integers(-(2**62), 2**62), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.one_of(st.none(), TEXT), min_size=n, max_size=n),
)))  # fmt: skip
def test_columns_make_the_arrow_table_pandas_makes(columns):
    floats, integers, flags, text = columns
    given_columns = {
        "f": np.array(floats, dtype=np.float64),
        "i": np.array(integers, dtype=np.int64),
        "b": np.array(flags, dtype=bool),
        "s": np.array(text, dtype=object),
        "u": np.where(np.array(flags, dtype=bool), "killed", "finished"),
        "scenario": "name",
        "replication": 3,
    }
    if len(floats):
        same_arrow(arrow_columns(given_columns), pd.DataFrame(given_columns))


VALUES = st.one_of(st.none(), st.integers(-5, 5), FLOATS, TEXT, st.booleans())


@settings(max_examples=examples(80))
@given(st.lists(st.dictionaries(st.sampled_from("abcd"), VALUES, max_size=4), min_size=1,
                max_size=5))  # fmt: skip
def test_rows_make_the_arrow_table_pandas_makes(records):
    frame = pd.DataFrame(records)
    try:
        expected = pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowException, ValueError, TypeError):
        return  # a mixture pandas itself cannot store (text among numbers)
    mixed = any(
        len({type(r[k]) for r in records if r.get(k) is not None} - {int, float}) > 0
        and any(isinstance(r.get(k), int | float) for r in records)
        for k in frame.columns
    )
    if mixed:
        return
    built = arrow_rows(records)
    assert built.schema.remove_metadata() == expected.schema.remove_metadata()
    assert built.equals(expected)


@settings(max_examples=examples(60))
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(FLOATS, min_size=n, max_size=n),
    st.lists(st.integers(-(2**40), 2**40), min_size=n, max_size=n),
    st.lists(st.one_of(st.none(), TEXT), min_size=n, max_size=n),
)))  # fmt: skip
def test_csv_text_is_what_pandas_writes(columns):
    floats, integers, text = columns
    frame = pd.DataFrame({"policy": text, "x": floats, "n": integers})
    assert csv_text(to_arrow(frame)) == frame.to_csv(index=False)


def test_a_column_reads_as_pandas_gives_it():
    frame = pd.DataFrame({"i": [1, 2], "f": [1.5, math.nan], "s": ["a", None], "b": [True, False],
                          "n": pd.array([1, None], dtype="Int64")})  # fmt: skip
    table = to_arrow(frame)
    for name in frame.columns:
        found, expected = column(table, name), frame[name].to_numpy()
        assert found.dtype.kind == expected.dtype.kind, name
        assert (pd.isna(found) == pd.isna(expected)).all(), name
        assert (found[~pd.isna(found)] == expected[~pd.isna(expected)]).all(), name
    assert math.isnan(list(rows(table))[1]["s"])


# ---- the statistics against pandas -------------------------------------------------------------


def reference_summarise(table: pd.DataFrame, keys: list[str], metrics: list[str]) -> pd.DataFrame:
    out = []
    for group, part in table.groupby(keys, sort=False, dropna=False):
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        row["runs"] = len(part)
        for metric in metrics:
            mean, half, _ = mean_interval(part[metric].to_numpy(dtype=float))
            row[f"{metric}_mean"], row[f"{metric}_ci95"] = mean, half
        out.append(row)
    return pd.DataFrame(out)


def reference_paired(runs: pd.DataFrame, metric: str, baseline: str, keys: list[str]
                     ) -> pd.DataFrame:  # fmt: skip
    table = runs.pivot_table(index=["replication", *keys], columns="policy", values=metric,
                             sort=False, dropna=False)  # fmt: skip
    out = []
    grouped = table.groupby(level=keys, sort=False, dropna=False) if keys else [((), table)]
    for group, part in grouped:
        group = group if isinstance(group, tuple) else (group,)
        for policy in part.columns:
            if policy == baseline:
                continue
            pairs = part[[baseline, policy]].dropna()
            mean, half, count = mean_interval((pairs[policy] - pairs[baseline]).to_numpy())
            with np.errstate(divide="ignore", invalid="ignore"):
                relative = (pairs[policy] / pairs[baseline] - 1.0).to_numpy()
            rel_mean, rel_half, _ = mean_interval(relative)
            out.append({**dict(zip(keys, group, strict=True)), "policy": policy,
                        "baseline": baseline, "metric": metric, "pairs": count,
                        "difference_mean": mean, "difference_ci95": half,
                        "relative_mean": rel_mean, "relative_ci95": rel_half})  # fmt: skip
    return pd.DataFrame(out)


def reference_rejections(counts, runs: pd.DataFrame, keys: list[str]) -> list[dict]:
    first = runs[runs["policy"] == runs["policy"].iloc[0]].assign(policy="every policy")
    out = []
    for count in counts:
        counted = first if count.same_for_every_policy else runs
        for values, group in counted.groupby(keys, sort=False, dropna=False):
            number, total = int(group[count.column].sum()), int(group[count.of].sum())
            if number:
                labels = dict(zip(keys, values if isinstance(values, tuple) else (values,),
                                  strict=True))  # fmt: skip
                labels = {k: v.item() if hasattr(v, "item") else v for k, v in labels.items()}
                out.append({**labels, "count": number, "of": total, "what": count.what,
                            "why": count.why})  # fmt: skip
    return out


RUNS = st.lists(
    st.tuples(
        st.integers(0, 3),  # replication
        st.sampled_from(["fcfs", "easy", "cons"]),  # policy
        st.sampled_from([60.0, 10.0, math.nan]),  # a swept float
        st.sampled_from(["b", "a"]),  # a swept text
        st.one_of(st.floats(-1e6, 1e6), st.just(math.nan)),  # metric
        st.integers(0, 3),  # a count
    ),
    min_size=1,
    max_size=14,
    unique_by=lambda r: r[:4],
)


def runs_frame(data) -> pd.DataFrame:
    return pd.DataFrame(data, columns=["replication", "policy", "x.threshold", "x.name",
                                       "metric", "dropped"])  # fmt: skip


def equal_tables(found, expected: pd.DataFrame) -> None:
    found = found if isinstance(found, pd.DataFrame) else found.to_pandas()
    if expected.empty:
        assert found.empty
        return
    pd.testing.assert_frame_equal(found.reset_index(drop=True), expected, check_exact=True,
                                  check_dtype=False)  # fmt: skip
    assert [str(t) for t in found.dtypes] == [str(t) for t in expected.dtypes]


@settings(max_examples=examples(80))
@given(RUNS, st.sampled_from([[], ["x.threshold"], ["x.name", "x.threshold"]]))
def test_summaries_and_paired_comparisons_are_pandas_own_on_either_table(data, keys):
    runs = runs_frame(data)
    expected = reference_summarise(runs, [*keys, "policy"], ["metric", "dropped"])
    for table in (runs, to_arrow(runs)):
        equal_tables(summarise_by(table, [*keys, "policy"], ["metric", "dropped"]), expected)
    baseline = runs["policy"].iloc[0]
    expected = reference_paired(runs, "metric", baseline, keys)
    for table in (runs, to_arrow(runs)):
        equal_tables(paired_comparison(table, "metric", baseline, keys), expected)


@settings(max_examples=examples(60))
@given(RUNS, st.sampled_from([[], ["x.threshold"]]))
def test_rejection_counts_are_pandas_own_on_either_table(data, axes):
    runs = runs_frame(data).assign(jobs=10)
    counts = (Count("dropped", "jobs", "jobs dropped", "why", same_for_every_policy=True),
              Count("dropped", "jobs", "jobs rejected", "why"))  # fmt: skip
    expected = reference_rejections(counts, runs, [*axes, "policy"])
    for table in (runs, to_arrow(runs)):
        found = rejection_rows(counts, table, axes)
        assert len(found) == len(expected)
        for row, want in zip(found, expected, strict=True):
            assert row.keys() == want.keys()
            for key in want:
                same_nan = isinstance(want[key], float) and math.isnan(want[key])
                assert (same_nan and math.isnan(row[key])) or row[key] == want[key], key

"""The workload commands as a user types them: convert, describe (with its page), generate;
and a sacct dump, a Batsim workload and a model's flow replayed by a scenario."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner
from workload_fixtures import BATSIM, SACCT

from gridsim.cli import main
from gridsim.workloads.readers import read_records, read_workload
from gridsim.workloads.swf import bundled_swf


def invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_convert_says_what_it_wrote_and_what_the_output_cannot_hold(tmp_path):
    result = invoke("convert", SACCT, tmp_path / "cluster.swf.gz")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"wrote {tmp_path / 'cluster.swf.gz'} (swf): 12 of 12 jobs of {SACCT} (slurm)",
        "  swf has no place for: source_job_id, nodes, cores_per_node, gpus_per_node, user, "
        "group, partition, exit_status",
    ]
    assert len(read_records(tmp_path / "cluster.swf.gz").records) == 12
    quiet = invoke("convert", BATSIM, tmp_path / "b.parquet", "-q")
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_describe_prints_the_numbers_and_writes_its_page(tmp_path):
    result = invoke("workload", "describe", SACCT, "-o", tmp_path / "page")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "jobs: 8 (dropped: 2 cancelled before start, 2 non positive run time)" in text
    assert "machine: 320 processors" in text and "UTC (log starts 2024-03-04 08:00)" in text
    assert "per day: Mon 8, Tue 0" in text  # 2024-03-04 was a Monday
    assert sorted(p.name for p in (tmp_path / "page").iterdir()) == [
        "description.json", "index.md", "workload.png"]  # fmt: skip
    numbers = json.loads((tmp_path / "page" / "description.json").read_text())
    assert numbers["jobs"] == 8 and numbers["users"] == 4
    as_json = json.loads(invoke("workload", "describe", BATSIM, "--json").stdout)
    assert as_json["machine_processors"] == 16 and as_json["jobs"] == 4


def test_generate_writes_a_flow_in_the_format_its_name_says(tmp_path):
    result = invoke("workload", "generate", "lublin", "-n", 500, "--machine-processors", 256,
                    "--job-classes", "typeless", "--estimates", "tsafrir", "-o",
                    tmp_path / "l256.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    log = read_workload(tmp_path / "l256.json")
    assert len(log.jobs) == 500 and log.machine_processors == 256
    assert log.jobs.processors.max() <= 256 and log.report.repaired["estimate_from_run_time"] == 0
    again = invoke("workload", "generate", "lublin", "-n", 500, "--machine-processors", 256,
                   "--job-classes", "typeless", "--estimates", "tsafrir", "-o",
                   tmp_path / "again.swf", "-q")  # fmt: skip
    assert again.exit_code == 0
    swf = read_workload(tmp_path / "again.swf").jobs
    assert np.array_equal(swf.submit_time, log.jobs.submit_time)  # the same seed, the same flow
    assert np.array_equal(swf.estimate, log.jobs.estimate)


REPLAY = """\
name: replay
kind: swf_replay
replications: 2
workload: {path: LOG}
schedulers: [easy, conservative]
"""


def _run(tmp_path, scenario: str, *extra: str) -> pd.DataFrame:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "s.yaml").write_text(scenario)
    result = invoke("run", tmp_path / "s.yaml", "-q", "-j", 1, "-o", tmp_path / "out", *extra)
    assert result.exit_code == 0, result.output
    return pd.read_parquet(tmp_path / "out" / "runs")


def test_a_sacct_dump_replays_with_the_machine_seen_or_given(tmp_path):
    runs = _run(tmp_path, REPLAY.replace("LOG", str(SACCT)))
    assert set(runs.jobs) == {8} and set(runs.dropped_cancelled_before_start) == {2}
    metadata = json.loads((tmp_path / "out" / "metadata.json").read_text())
    reasons = {row["why"] for row in metadata["rejections"]}
    assert "cancelled before they started" in reasons
    given = _run(tmp_path, REPLAY.replace("LOG", str(SACCT)), "--overwrite", "--set",
                 "workload.mapping.machine_processors=64")  # fmt: skip
    assert (given.utilisation > runs.utilisation).all()  # the same work on a fifth of it


def test_a_model_s_flow_is_drawn_anew_for_each_replication(tmp_path):
    scenario = REPLAY.replace("{path: LOG}", "{model: lublin, jobs: 300, machine_processors: 64,"
                              " estimates: {model: tsafrir}}")  # fmt: skip
    runs = _run(tmp_path, scenario)
    first, second = (runs[runs.replication == r] for r in (0, 1))
    assert list(first.jobs) == [300, 300]
    assert not np.allclose(first.mean_wait_time.to_numpy(), second.mean_wait_time.to_numpy())
    again = _run(tmp_path / "again", scenario)
    pd.testing.assert_frame_equal(
        again.drop(columns=["replay_time_s", "replay_cpu_s", "jobs_per_second", "scenario"]),
        runs.drop(columns=["replay_time_s", "replay_cpu_s", "jobs_per_second", "scenario"]),
    )


def test_a_batsim_workload_replays_like_its_swf_original(tmp_path):
    invoke("convert", bundled_swf(), tmp_path / "kth.json")
    scenario = REPLAY.replace("replications: 2", "replications: 1")
    from_json = _run(tmp_path / "a", scenario.replace("LOG", str(tmp_path / "kth.json")))
    from_swf = _run(tmp_path / "b", scenario.replace("LOG", str(bundled_swf())))
    for column in ("jobs", "mean_wait_time", "mean_bounded_slowdown", "utilisation"):
        assert list(from_json[column]) == list(from_swf[column]), column

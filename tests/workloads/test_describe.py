"""The description of a workload, on a hand-built log whose numbers are known: span, offered
load, arrivals per hour and weekday in the log's time zone, sizes, run times, estimate
accuracy and users' shares."""

from __future__ import annotations

import pytest
from swf_helpers import job, write_log

from gridsim.workloads.describe import describe, describe_text
from gridsim.workloads.swf import read_swf

# 2024-03-04 00:00 UTC, a Monday: 01:00 in Stockholm (UTC+1 in March)
HEADER = "; UnixStartTime: 1709510400\n; TimeZoneString: Europe/Stockholm\n; MaxProcs: 8\n"


@pytest.fixture
def log(tmp_path):
    lines = [
        job(1, 0, 3600, 4, 7200, user_id=1),  # Monday 01:00
        job(2, 3600, 1800, 2, 1800, user_id=1),  # Monday 02:00, exact estimate
        job(3, 86400, 600, 1, 300, user_id=2),  # Tuesday 01:00, killed at 300 s
        job(4, 86400 + 7200, 100, 8, 400, user_id=3),  # Tuesday 03:00
    ]
    return read_swf(write_log(tmp_path / "a.swf", lines, header=HEADER))


def test_the_numbers_of_a_known_log(log):
    d = describe(log)
    assert (d.jobs, d.machine_processors, d.span_s) == (4, 8, 86400 + 7200)
    work = 4 * 3600 + 2 * 1800 + 1 * 300 + 8 * 100  # killed job 3 holds its processor 300 s
    assert d.offered_load == pytest.approx(work / (8 * (86400 + 7200)))
    assert d.arrivals_per_hour[1] == 2 and d.arrivals_per_hour[2] == 1
    assert d.arrivals_per_hour[3] == 1 and sum(d.arrivals_per_hour) == 4
    assert d.arrivals_per_weekday == [2, 2, 0, 0, 0, 0, 0]
    assert d.size["serial_share"] == 0.25 and d.size["power_of_two_share"] == 1.0
    assert d.run_time_s["max"] == 3600 and d.run_time_s["p50"] == pytest.approx(1200)
    assert d.estimate["mean_accuracy"] == pytest.approx((0.5 + 1 + 1 + 0.25) / 4)
    assert d.estimate["overrun_share"] == 0.25
    assert d.users == 3 and d.top_users[0]["user"] == "1"
    assert d.top_users[0]["job_share"] == 0.5
    assert d.top_users[0]["work_share"] == pytest.approx((4 * 3600 + 2 * 1800) / work)
    assert "Europe/Stockholm (log starts 2024-03-04 01:00)" in describe_text(d)


def test_another_machine_and_time_zone_can_be_given(log):
    d = describe(log, machine_processors=16, time_zone="UTC")
    assert d.offered_load == pytest.approx(describe(log).offered_load / 2)
    assert d.arrivals_per_hour[0] == 2 and d.arrivals_per_weekday[:2] == [2, 2]

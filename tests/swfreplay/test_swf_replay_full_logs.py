"""Every start time of every full archive log equals the previous replay's (slow: minutes).

The conservative planner skips compression checks and merges profile steps; its docstring
argues why that changes no start time. This checks it on the three full logs against the
replay kept in ``tests/workloads/scan_conservative.py`` (``pytest -m slow``; the logs are read
from ``GRIDSIM_SWF_DIR``). ``benchmarks/bench_swf_replay.py`` checks the same while timing.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from gridsim.sim.log_replay import replay_log
from gridsim.workloads.swf import read_swf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workloads"))
from scan_conservative import ScanConservative

FULL_LOG_DIR = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf"))


@pytest.mark.slow
@pytest.mark.skipif(not FULL_LOG_DIR.is_dir(), reason="full PWA logs not available")
@pytest.mark.parametrize(
    "name",
    ["KTH-SP2-1996-2.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"],
)
def test_every_start_time_of_a_full_log_equals_the_previous_replay(name):
    log = read_swf(FULL_LOG_DIR / name)
    jobs, machine = log.jobs, log.machine_processors
    replay = replay_log(jobs, machine, "conservative", record_nodes=False)
    previous = replay_log(jobs, machine, ScanConservative, record_nodes=False)
    np.testing.assert_array_equal(replay.start_time, previous.start_time)
    np.testing.assert_array_equal(replay.first_reservation, previous.first_reservation)
    assert replay.counters["compression_moves"] == previous.counters["compression_moves"]

"""Jobs asking for processors only keep today's start times (slow: the three archive logs).

tests/data/processor_only_start_times.json holds the SHA-256 of every job's start time
(little-endian float64, in log order) of FCFS, EASY and conservative backfilling on KTH-SP2,
SDSC-BLUE and HPC2N, computed with gridsim before nodes had cores, memory and GPUs. The replay
through the swf_replay kind, on the log's machine and on one-core node classes that declare
GPUs (and memory, where the log gives none) that no job asks for -- the fast path, a processor
count on identical nodes -- must give the same bytes. Logs are read from GRIDSIM_SWF_DIR.
"""

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from gridsim.experiments.runner import replication_seed
from gridsim.experiments.swf_replay import (
    SwfReplayScenario,
    run_replication,
)

FULL_LOG_DIR = Path(os.environ.get("GRIDSIM_SWF_DIR", "/work/shared/data/swf"))
REFERENCE = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "processor_only_start_times.json").read_text()
)
LOGS = {"KTH-SP2": ("KTH-SP2-1996-2.1-cln.swf.gz", 100),
        "SDSC-BLUE": ("SDSC-BLUE-2000-4.2-cln.swf.gz", 1152),
        "HPC2N": ("HPC2N-2002-2.1-cln.swf.gz", 240)}  # fmt: skip


def digest(start_time: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(start_time, dtype="<f8").tobytes()).hexdigest()


def replay_scenario(log: str, platform: dict) -> SwfReplayScenario:
    path, _ = LOGS[log]
    document = {"name": "regression", "kind": "swf_replay", "seed": 1, "progress": False,
                "record_nodes": False, "workload": {"path": str(FULL_LOG_DIR / path)},
                "platform": platform}  # fmt: skip
    return SwfReplayScenario.model_validate(document)


@pytest.mark.slow
@pytest.mark.skipif(not FULL_LOG_DIR.is_dir(), reason="full PWA logs not available")
@pytest.mark.parametrize("resources", [False, True], ids=["log machine", "memory and GPUs"])
@pytest.mark.parametrize("log", list(LOGS))
def test_processor_only_start_times_equal_todays(log, resources):
    _, processors = LOGS[log]
    platform = {}
    if resources:  # GPUs no job asks for; memory too where no job of the log asks for it
        node_class = {"count": processors, "gpus": 2}
        if log != "HPC2N":  # HPC2N's jobs give memory (field 10)
            node_class["memory_mb"] = 1024
        platform = {"node_classes": [node_class]}
    scenario = replay_scenario(log, platform)
    jobs = run_replication(scenario, 0, replication_seed(scenario.seed, 0))["jobs"]
    for scheduler, table in jobs.groupby("scheduler", sort=False):
        expected = REFERENCE[f"{log}/{scheduler}"]
        assert len(table) == expected["jobs"]
        assert digest(table.start_time.to_numpy()) == expected["start_time_sha256"], scheduler

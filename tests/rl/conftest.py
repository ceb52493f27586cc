"""Sources of episodes shared by the learning-environment tests (built once per session).

Every test module here starts with ``pytest.importorskip("gymnasium")``: without the ``rl``
extra they are reported as skipped; the imports of :mod:`gridsim.rl` wait for the fixtures.
"""

import pytest

#: The bundled KTH-SP2 excerpt on its homogeneous 100-processor machine.
KTH = {"name": "kth", "kind": "swf_replay", "progress": False}


@pytest.fixture(scope="session")
def kth_source():
    from gridsim.rl.episodes import EpisodeSource

    return EpisodeSource(KTH, episode_jobs=128)


@pytest.fixture(scope="session")
def lublin_source():
    from gridsim.rl import LUBLIN_256
    from gridsim.rl.episodes import EpisodeSource

    workload = {**LUBLIN_256["workload"], "jobs": 2000}
    return EpisodeSource({**LUBLIN_256, "workload": workload}, episode_jobs=128)


@pytest.fixture(scope="session")
def nodes_source():
    from gridsim.rl import LUBLIN_256_NODES
    from gridsim.rl.episodes import EpisodeSource

    # Lublin's flow for 64 processors on 32 reference and 32 faster, dearer nodes: window
    # searches on 256 nodes take tens of milliseconds each, too slow for the default run
    workload = {**LUBLIN_256_NODES["workload"], "jobs": 400, "machine_processors": 64}
    classes = [{"count": 32, "performance": 1.0, "price": 1.0},
               {"count": 32, "performance": 1.5, "price": 2.0}]  # fmt: skip
    scenario = {**LUBLIN_256_NODES, "workload": workload, "platform": {"node_classes": classes}}
    return EpisodeSource(scenario, episode_jobs=24)

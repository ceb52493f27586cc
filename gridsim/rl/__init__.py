"""Learning environments (Gymnasium) over gridsim's log replays and workload models.

Three environments, registered under ids of their own when this package is imported:

* ``gridsim/JobSelection-v0`` (:class:`~gridsim.rl.job_selection.JobSelectionEnv`): which of
  the first K waiting jobs runs next, as RLScheduler;
* ``gridsim/BackfillSelection-v0``
  (:class:`~gridsim.rl.backfill_selection.BackfillSelectionEnv`): which job backfills around
  EASY's reserved head, as RLBackfilling;
* ``gridsim/ResourceSelection-v0``
  (:class:`~gridsim.rl.resource_selection.ResourceSelectionEnv`): which candidate window a
  job gets on heterogeneous priced nodes.

Each is built from an ``swf_replay`` scenario (``scenario=``: a path, YAML text or mapping),
resource selection also from a ``jobflow`` one (an episode per replication); without one,
from :data:`LUBLIN_256` (job and backfill selection) or :data:`LUBLIN_256_NODES` (resource
selection). Data flow: ``episodes`` (N consecutive jobs at a seeded start, or a job flow's
replication) -> ``queue_loop`` / ``node_loop`` (gridsim's schedulers and engine, paused
at decisions) -> the environments (``features``, ``rewards``) <- ``baselines``. Gymnasium
is the optional extra ``rl``: ``pip install 'gridsim-sched[rl]'``. docs/rl.md.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

try:
    import gymnasium
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError("gridsim.rl needs Gymnasium: pip install 'gridsim-sched[rl]'") from error


def _bundled(name: str) -> dict[str, Any]:
    """A default scenario of the environments, ``gridsim/data/rl/<name>.yaml``."""
    import yaml

    return yaml.safe_load((files("gridsim") / "data" / "rl" / f"{name}.yaml").read_text())


#: Lublin-256 (docs/workloads.md): the Lublin-Feitelson model's typeless flow for a machine
#: of 256 processors, exact estimates, 10,000 jobs drawn once from seed 1.
LUBLIN_256: dict[str, Any] = _bundled("lublin-256")
#: Lublin-256 on two node classes: 128 reference nodes at price 1 and 128 nodes 1.5 times
#: faster at price 2, every window chosen by BFfinish unless the agent picks another.
LUBLIN_256_NODES: dict[str, Any] = _bundled("lublin-256-nodes")

#: Environment id -> (entry point, default keyword arguments).
ENVIRONMENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "gridsim/JobSelection-v0": ("gridsim.rl.job_selection:JobSelectionEnv",
                                {"scenario": LUBLIN_256}),
    "gridsim/BackfillSelection-v0": ("gridsim.rl.backfill_selection:BackfillSelectionEnv",
                                     {"scenario": LUBLIN_256}),
    "gridsim/ResourceSelection-v0": ("gridsim.rl.resource_selection:ResourceSelectionEnv",
                                     {"scenario": LUBLIN_256_NODES}),
}  # fmt: skip


def register_environments() -> None:
    """Register :data:`ENVIRONMENTS` with Gymnasium (again harmless)."""
    for env_id, (entry_point, kwargs) in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry_point, kwargs=kwargs)


register_environments()

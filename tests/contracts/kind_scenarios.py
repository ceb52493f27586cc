"""One small scenario per kind, as YAML text: each runs a few replications in about a second.

Shared by the seed-tree and common-random-numbers contracts (a plain module with a unique
name, so it cannot clash with other folders' helpers)."""

from __future__ import annotations

import yaml

from gridsim.experiments.kinds import load_scenario

WINDOW_SEARCH = """
name: seeds-window-search
kind: window_search
seed: 41
replications: 4
environment:
  nodes: 12
  horizon: 300
  local_load: {max_utilisation: 0.3, draws: 6, tasks_per_node: [1, 2]}
request: {n: 3, volume: 120, budget: 1000}
policies: [FirstFit, MinCost, MinFinish, MaxQ]
"""

JOBFLOW = """
name: seeds-jobflow
kind: jobflow
seed: 42
replications: 4
environment:
  nodes: 6
  performance: {low: 2, high: 8}
  local_load: {max_utilisation: 0.2, draws: 4, tasks_per_node: [0, 1]}
jobs: {n: [1, 3], volume: {low: 20, high: 200}, runtime_factor: {low: 0.6, high: 1.2}}
arrivals: {model: uniform, span: 100}
queue_sizes: [4, 6]
policies: [BFstart, BFfinish, CoP]
baseline: BFfinish
"""

BATCH = """
name: seeds-batch
kind: batch
seed: 43
replications: 4
policies: [{name: ALP}, {name: AMP}]
goals: [time, cost]
slots: {count: [20, 30], length: [50.0, 300.0], performance: [1.0, 3.0]}
jobs: {count: [2, 4], nodes: [1, 3], runtime: [50.0, 150.0], min_performance: [1.0, 2.0]}
"""

CLOUD = """
name: seeds-cloud
kind: cloud
seed: 44
replications: 4
policies:
  - {name: EqualChunks, samples_per_task: 6000}
  - {name: DyTSS, L: 1500, M: 18000}
application: {total_samples: 120000}
framework: {max_pilots: 6}
providers:
  - name: fast
    advertised: {max_vms: 4, performance_w: 2000, bandwidth_mb_s: 0.25}
    capacity: [{time_s: 0, vms: 3}]
    performance_w: {low: 1500, high: 2000}
  - name: slow
    advertised: {max_vms: 4, performance_w: 1500, bandwidth_mb_s: 0.25}
    capacity: [{time_s: 0, vms: 4}]
    performance_w: {low: 1000, high: 1200}
"""

SWF_REPLAY = """
name: seeds-swf-replay
kind: swf_replay
replications: 2
workload: {max_jobs: 60}
schedulers: [fcfs, easy, conservative]
progress: false
"""

BY_KIND = {
    "window_search": WINDOW_SEARCH,
    "jobflow": JOBFLOW,
    "batch": BATCH,
    "cloud": CLOUD,
    "swf_replay": SWF_REPLAY,
}


def scenario(kind: str, **changes):
    """The validated scenario of ``kind`` and its text, with top-level fields changed."""
    document = yaml.safe_load(BY_KIND[kind])
    document.update(changes)
    return load_scenario(yaml.safe_dump(document, sort_keys=False))

"""Cloud federation with pilot jobs: consumes the federation's parameters and a
self-scheduler, produces per-task traces, progress over time and makespans of self-schedulers
(equal chunks, DyTSS).

After "A simple model to exploit reliable algorithms in cloud federations"; see docs/cloud.md.
Scenarios of kind ``cloud`` run through :mod:`gridsim.experiments.cloud`.
"""

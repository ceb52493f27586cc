"""The compiled planning core: hot planning loops in C, with the Python modules as reference.

``gridsim/core/_replay.c`` (with ``_profile.c``) is the replay of a log on a processor count:
the event loop of :mod:`gridsim.sim.log_replay` and the FCFS, EASY and conservative planners
of :mod:`gridsim.scheduling.log_schedulers` on the step profile of
:mod:`gridsim.scheduling.counting_profile`, step for step, so every start time is the same.
``_resource_replay.c`` (with ``_resource_planners.c`` and ``_resource_profile.c``) is the
replay on nodes with cores, memory and GPUs: the same loop and the planners of
:mod:`gridsim.scheduling.resource_schedulers` on the profile of
:mod:`gridsim.scheduling.resource_profile`. Both are one extension, ``_replay``;
:mod:`gridsim.core.replay` loads it, or says why it cannot (README, "The compiled core").
"""

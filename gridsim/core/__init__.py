"""The compiled planning core: hot planning loops in C, with the Python modules as reference.

``gridsim/core/_replay.c`` (with ``_profile.c``) is the replay of a log on a processor count:
the event loop of :mod:`gridsim.sim.log_replay` and the FCFS, EASY and conservative planners
of :mod:`gridsim.scheduling.log_schedulers` on the step profile of
:mod:`gridsim.scheduling.counting_profile`, step for step, so every start time is the same.
:mod:`gridsim.core.replay` loads it, or says why it cannot (README, "The compiled core").
"""

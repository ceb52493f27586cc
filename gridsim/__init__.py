"""gridsim: discrete-event simulation of grid and cloud job scheduling.

The data flow is scenario -> instance -> schedule/simulation -> trace -> analysis; see
docs/architecture.md.
"""

__version__ = "0.1.0"

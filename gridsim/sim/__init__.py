"""The SimPy side of gridsim: the event loop that executes plans and records traces."""

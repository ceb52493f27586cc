"""Example gridsim plugins, found through the entry points of this package's pyproject.toml:
the criterion ``ReliableFinish`` and the job-flow scheduler ``smallest-area-easy``."""

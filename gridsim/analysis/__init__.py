"""Analysis: statistics computed from traces after the run."""

"""Analysis: statistics, tables and figures computed from result tables after a run."""

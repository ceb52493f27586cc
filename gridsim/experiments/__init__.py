"""Experiments: scenario kinds, replications with common random numbers, result files."""

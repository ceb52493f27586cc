"""Faults of job flows: their scenario parameters, their random draws, recorded outages."""

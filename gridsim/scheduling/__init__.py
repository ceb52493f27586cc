"""Scheduling policies: pure planning code (no clock, no SimPy)."""

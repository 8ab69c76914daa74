"""Scenario builders that reproduce the papers' testbeds (used by tests, sweeps and docs/validation)."""

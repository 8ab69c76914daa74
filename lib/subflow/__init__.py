"""Subflow domain library: scenario schema, mobility, association, routing,
run plans, strategies and result summaries, shared by every Subflow service."""

__version__ = "0.1.0"

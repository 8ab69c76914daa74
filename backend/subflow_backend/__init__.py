"""Subflow REST API: scenarios, comparisons, results (FastAPI + SQLAlchemy 2)."""

"""Integration tests on real processes (see conftest.py)."""

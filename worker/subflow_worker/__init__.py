"""Subflow Celery worker: runs comparisons through the emulator agent and stores results."""

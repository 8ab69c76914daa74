"""Subflow emulator agent: executes run plans on an engine and returns timelines."""

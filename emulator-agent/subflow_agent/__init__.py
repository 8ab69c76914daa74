"""Subflow emulator agent: the HTTP service that executes run plans on the engines of
:mod:`subflow_engines` and returns their timelines."""

"""Bounds on what one request may ask the service to store or compute.

The values come from the service's settings (``MAX_*`` environment variables of the
backend, see DEVELOPERS.md) and are passed in as a :class:`Limits`; nothing here reads
global state. Each check raises :class:`subflow.errors.LimitExceeded` (a
:class:`~subflow.errors.ScenarioInvalid`, so the API answers 422) naming the setting.

The scenario schema keeps its own absolute caps (``Scenario.nodes`` at most 10 000...,
``duration_s / interval_s`` at most 200 000); these limits are the operative ones and
default to at most those caps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from subflow.errors import LimitExceeded
from subflow.scenario.document import Scenario
from subflow.space.mobility import to_local, trajectory


@dataclass(frozen=True)
class Limits:
    """Bounds of one request (defaults: the service's defaults).

    Attributes
    ----------
    max_nodes, max_links, max_flows, max_link_events : int
        Items of each list of a scenario (``MAX_NODES``, ``MAX_LINKS``, ``MAX_FLOWS``,
        ``MAX_LINK_EVENTS``).
    max_samples : int
        ``run.duration_s / run.interval_s``: samples of every result time series
        (``MAX_SAMPLES``).
    max_timeline_legs : int
        Straight legs of all nodes' trajectories together, i.e. the size of the
        timeline (``MAX_TIMELINE_LEGS``); random models with a short ``step_s`` or small
        bounds make many.
    max_sweep_units : int
        Runs of one comparison per strategy: sweep points (values, × values_y for a 2-D
        grid) × repetitions
        (``MAX_SWEEP_UNITS``).
    max_track_bytes : int
        Bytes of one imported track file, GPX/AIS/NMEA (``MAX_TRACK_BYTES``; 413 at the API,
        :func:`subflow.io.tracks.check_size`).
    max_satcom_samples : int
        SATCOM geometry evaluations: (satellites with an ephemeris + SATCOM links + inter-satellite links) ×
        (``run.duration_s / satcom.sample_s`` + 1) (``MAX_SATCOM_SAMPLES``; :mod:`subflow.space.satcom`).
    """
    max_nodes: int = 2_000
    max_links: int = 10_000
    max_flows: int = 2_000
    max_link_events: int = 10_000
    max_samples: int = 200_000
    max_timeline_legs: int = 200_000
    max_sweep_units: int = 1_000
    max_track_bytes: int = 20 * 1024 * 1024
    max_satcom_samples: int = 5_000_000


def check_scenario(scenario: Scenario, limits: Limits) -> None:
    """Check a validated scenario against ``limits`` (list sizes, samples, timeline size).

    The timeline is computed leg by leg and abandoned as soon as it passes
    ``limits.max_timeline_legs``, so the check itself is bounded.

    Raises
    ------
    LimitExceeded
        For the first bound exceeded; ``loc`` is the list (``["nodes"]``...), the run
        settings (``["run", "interval_s"]``) or the node (``["nodes", i, "mobility"]``).
    """
    for part, setting, limit in (
        ("nodes", "MAX_NODES", limits.max_nodes),
        ("links", "MAX_LINKS", limits.max_links),
        ("flows", "MAX_FLOWS", limits.max_flows),
        ("link_events", "MAX_LINK_EVENTS", limits.max_link_events),
    ):
        n = len(getattr(scenario, part))
        if n > limit:
            raise LimitExceeded(setting, limit, n, [part], part.replace("_", " "))
    samples = math.ceil(scenario.run.duration_s / scenario.run.interval_s - 1e-9)
    if samples > limits.max_samples:
        raise LimitExceeded("MAX_SAMPLES", limits.max_samples, samples, ["run", "interval_s"],
                            "samples (run.duration_s / run.interval_s)")
    if scenario.satcom is not None:
        orbiting = {n.id for n in scenario.nodes if getattr(n, "ephemeris", None) is not None}
        links = sum(1 for lk in scenario.links if lk.src in orbiting or lk.dst in orbiting)  # SATCOM links, ISLs
        evaluations = (len(orbiting) + links) * (math.floor(scenario.run.duration_s / scenario.satcom.sample_s) + 2)
        if evaluations > limits.max_satcom_samples:
            raise LimitExceeded("MAX_SATCOM_SAMPLES", limits.max_satcom_samples, evaluations,
                                ["satcom", "sample_s"], "SATCOM geometry samples ((satellites + links) x times)")

    budget = limits.max_timeline_legs
    for i, node in enumerate(to_local(scenario).nodes):
        try:
            legs = trajectory(node, scenario.run.duration_s, scenario.run.seed, max_legs=budget)
        except LimitExceeded:
            raise LimitExceeded("MAX_TIMELINE_LEGS", limits.max_timeline_legs,
                                f"more than {limits.max_timeline_legs}", ["nodes", i, "mobility"],
                                "trajectory legs (all nodes)") from None
        budget -= len(legs)


def check_sweep(values: int, repetitions: int, limits: Limits) -> None:
    """Check the size of a comparison: ``values`` sweep points (1 without a sweep; the
    product of both axes for a 2-D sweep) × ``repetitions``.

    Raises
    ------
    LimitExceeded
        ``loc`` ``["sweep", "values"]`` (or ``["repetitions"]`` without a sweep).
    """
    units = values * repetitions
    if units > limits.max_sweep_units:
        loc = ["sweep", "values"] if values > 1 else ["repetitions"]
        raise LimitExceeded("MAX_SWEEP_UNITS", limits.max_sweep_units, units, loc,
                            "runs (sweep values x repetitions)")

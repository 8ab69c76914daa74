"""``POST /api/timeline``'s ``isl`` answer: the inter-satellite links' intervals, as ``subflow satcom --isl``."""

from __future__ import annotations

import json

import pytest

from subflow.scenario.document import load_scenario
from subflow.service.limits import Limits
from subflow.space.satcom import isl_timeline
from subflow_backend.api.routes.timeline import TimelinePublic, timeline_of

from tests.conftest import EXAMPLES


def test_the_timeline_lists_the_isl_with_range_delay_and_visibility():
    doc = json.loads((EXAMPLES / "naval-leo-isl.json").read_text())
    answer = TimelinePublic.model_validate(timeline_of(doc, Limits()).model_dump(mode="json"))
    isl = isl_timeline(load_scenario(doc))["isl-ab"]
    (row,) = answer.isl
    assert (row.link, row.satellite_a, row.satellite_b, row.visible) == ("isl-ab", "leo-a", "leo-b", True)
    assert (row.t_start_s, row.t_end_s) == (0.0, 900.0)
    assert row.range_km[0] == (0.0, pytest.approx(isl.range_km[0], abs=1e-3))
    assert row.delay_ms[-1] == (900.0, pytest.approx(isl.delay_ms[-1], abs=1e-3))
    assert {u.terminal for u in answer.satcom} == {"ship", "shore"}
    # the windows cut where the ship's and shore's satellites rise and set
    assert any(abs(t0 - 201.53) < 0.01 for t0, _ in answer.windows)


def test_a_scenario_without_isl_answers_an_empty_list():
    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    assert timeline_of(doc, Limits()).isl == []


def test_the_access_report_only_when_asked():
    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    assert timeline_of(doc, Limits()).access == []
    passes = timeline_of(doc, Limits(), access=True).access
    assert {p.terminal for p in passes} == {"ship1", "ship2", "teleport"}  # the gateway too
    assert all(p.steps is None for p in passes)  # naval-leo has no link budgets

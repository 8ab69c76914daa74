"""The per-terminal access report (:mod:`subflow.space.access`) against skyfield's own pass finder.

skyfield's ``EarthSatellite.find_events`` (rise above, culminate, set below an altitude) is the independent
reference for a fixed terminal: rise and set within 0.5 s (the geometry is sampled every second and the mask
crossing interpolated linearly), the highest elevation within 0.05° at the culmination's time within 1 s.
The MODCOD steps are checked against the link budget's own series on the rain-fade example.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from skyfield.api import EarthSatellite, load, wgs84

from subflow.scenario.document import load_scenario
from subflow.space.access import access_report
from subflow.space.link_budget import link_budgets
from subflow.space.satcom import satcom_timeline

ROOT = Path(__file__).resolve().parents[3]
LINE1 = "1 90002U          26152.50000000  .00000000  00000-0  00000+0 0    04"
LINE2 = "2 90002  53.0000   0.0000 0000000   0.0000  45.0000 13.16010791    09"
START = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
SITE = (51.03, 1.52)
DURATION_S = 3 * 3600.0
MASK_DEG = 10.0


def _scenario() -> dict:
    return {
        "name": "access", "geo": {"origin_lat_deg": SITE[0], "origin_lon_deg": SITE[1]},
        "nodes": [{"id": "term", "kind": "host", "position": {"lat_deg": SITE[0], "lon_deg": SITE[1]}},
                  {"id": "leo", "kind": "satellite", "orbit": "leo",
                   "position": {"lat_deg": 0.0, "lon_deg": 0.0, "alt_m": 1200000},
                   "ephemeris": {"model": "tle", "line1": LINE1, "line2": LINE2}}],
        "links": [{"id": "term-leo", "src": "term", "dst": "leo", "bandwidth_mbps": 3}],
        "flows": [],
        "run": {"duration_s": DURATION_S, "interval_s": 1.0},
        "satcom": {"start_utc": START.isoformat(), "elevation_mask_deg": MASK_DEG},
    }


def _skyfield_passes():
    ts = load.timescale()
    sat = EarthSatellite(LINE1, LINE2, "leo", ts)
    site = wgs84.latlon(*SITE)
    t0, t1 = ts.from_datetime(START), ts.from_datetime(START + timedelta(seconds=DURATION_S))
    times, kinds = sat.find_events(site, t0, t1, altitude_degrees=MASK_DEG)
    seconds = [(t.utc_datetime() - START).total_seconds() for t in times]
    out, cur = [], {}
    for s, k, t in zip(seconds, kinds, times):
        if k == 0:
            cur = {"rise": s}
        elif k == 1:
            alt, _, _ = (sat - site).at(t).altaz()
            cur.update(culminate=s, max_deg=alt.degrees)
        else:
            cur["set"] = s
            out.append(cur)
            cur = {}
    return out


def test_passes_match_skyfields_rise_culmination_and_set():
    ours = access_report(load_scenario(_scenario()))
    ref = [p for p in _skyfield_passes() if "rise" in p]
    assert len(ref) >= 2
    assert len(ours) == len(ref)
    for p, r in zip(ours, ref):
        assert (p.terminal, p.satellite, p.link) == ("term", "leo", "term-leo")
        assert p.rise_s == pytest.approx(r["rise"], abs=0.5)
        assert p.set_s == pytest.approx(r["set"], abs=0.5)
        assert p.t_max_elevation_s == pytest.approx(r["culminate"], abs=1.0)
        assert p.max_elevation_deg == pytest.approx(r["max_deg"], abs=0.05)
        assert p.in_use == [(p.rise_s, p.set_s)] or p.in_use[0][0] == pytest.approx(p.rise_s, abs=1.0)
        assert p.steps is None  # no budget


def test_modcod_steps_follow_the_link_budget_through_the_rain_fade():
    doc = json.loads((ROOT / "examples" / "naval-geo-rain-fade.json").read_text())
    sc = load_scenario(doc)
    tl = satcom_timeline(sc)
    budgets = link_budgets(sc, tl)
    report = access_report(sc, tl)
    assert {p.link for p in report} == set(tl.links)
    for p in report:
        series = budgets[p.link]
        assert len(p.steps) >= 1 and p.steps[0].t_s == p.rise_s
        for k, t in enumerate(series.t_s):  # every sample's MODCOD is the one of the step in force
            if p.rise_s <= t < p.set_s:
                step = [s for s in p.steps if s.t_s <= t + 1e-9][-1]
                assert (step.up_modcod, step.down_modcod) == (series.up_modcod[k], series.down_modcod[k])
                assert step.down_capacity_mbps == pytest.approx(float(series.down_capacity_mbps[k]), abs=1e-5)
    faded = [p for p in report if p.terminal == "ship1" and len(p.steps) > 1]
    assert faded, "the rain cell crossing the strait changes ship1's MODCOD"

"""SATCOM from orbits on real processes: bad orbits and SATCOM settings are 422 naming the field with
nothing stored, the timeline's SATCOM uses, and sptcp / mptcp / mptcp-fdm on examples/naval-leo.json through the
worker and the agent."""

from __future__ import annotations

import copy

import pytest

from tests.integration.conftest import _wait_comparison

pytestmark = pytest.mark.integration


def _leo_index(doc: dict) -> int:
    return next(i for i, n in enumerate(doc["nodes"]) if n.get("ephemeris", {}).get("model") == "tle")


def _bad_checksum(doc: dict) -> tuple[dict, list]:
    i = _leo_index(doc)
    eph = doc["nodes"][i]["ephemeris"]
    eph["line2"] = eph["line2"][:68] + str((int(eph["line2"][68]) + 1) % 10)
    return doc, ["body", "nodes", i, "satellite", "ephemeris", "tle", "line2"]


def _old_epoch(doc: dict) -> tuple[dict, list]:
    doc["satcom"]["start_utc"] = "2026-08-01T12:00:00Z"  # 61 days after the TLEs' epoch
    return doc, ["body", "nodes", _leo_index(doc), "ephemeris", "line1"]


def _mask(value: float):
    def change(doc: dict) -> tuple[dict, list]:
        doc["satcom"]["elevation_mask_deg"] = value
        return doc, ["body", "satcom", "elevation_mask_deg"]
    return change


BAD = {"bad-tle-checksum": _bad_checksum, "tle-epoch-far-from-the-run": _old_epoch,
       "mask-below-0": _mask(-5.0), "mask-above-90": _mask(91.0)}


def _names(api) -> set[str]:
    return {s["name"] for s in api.get("/scenarios", params={"limit": 1000}).json()["data"]}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_satcom_input_is_422_naming_the_field_and_stores_nothing(pg_stack, example, case):
    api = pg_stack.api
    doc, loc = BAD[case](example("naval-leo"))
    r = api.post("/scenarios", json=doc)
    assert r.status_code == 422, r.text
    assert loc in [d["loc"] for d in r.json()["detail"]], r.text
    assert doc["name"] not in _names(api)
    # the same mistake in a replacement leaves the stored document as it was
    good = example("naval-leo")
    created = api.post("/scenarios", json=good)
    assert created.status_code == 201, created.text
    sid, etag = created.json()["id"], created.headers["ETag"]
    bad, _ = BAD[case](copy.deepcopy(good))
    r = api.put(f"/scenarios/{sid}", json=bad, headers={"If-Match": etag})
    assert r.status_code == 422, r.text
    after = api.get(f"/scenarios/{sid}").json()
    assert after["version"] == created.json()["version"] and after["scenario"] == created.json()["scenario"]
    # and the timeline refuses it the same way
    r = api.post("/timeline", json=bad)
    assert r.status_code == 422 and loc in [d["loc"] for d in r.json()["detail"]], r.text


#: bad link budgets and beams on examples/naval-geo-rain-fade.json (nodes.2: kasat, links.0: ship1-ka)
BAD_BUDGET = {
    "payload-eirp-below-range": (lambda d: d["nodes"][2]["payload"].update(eirp_dbw=-30.0),
                                 ["body", "nodes", 2, "satellite", "payload", "eirp_dbw"]),
    "terminal-eirp-below-range": (lambda d: d["links"][0]["budget"].update(terminal_eirp_dbw=-60.0),
                                  ["body", "links", 0, "budget", "terminal_eirp_dbw"]),
    "rain-rate-above-table": (lambda d: d["links"][0]["budget"].update(rain_rate_mm_h=[[0, 250.5]]),
                              ["body", "links", 0, "budget", "rain_rate_mm_h", 0, 1]),
    "beam-without-carrier": (lambda d: d["satcom"].update(beams=[{"id": "ka", "satellite": "kasat",
                                                                  "links": ["ship1-ka"]}]),
                             ["body", "satcom", "beams", 0, "forward_symbol_rate_msps"]),
    "beam-unknown-link": (lambda d: d["satcom"].update(beams=[{"id": "ka", "satellite": "kasat",
                                                               "forward_symbol_rate_msps": 5.0,
                                                               "links": ["ship1-ka", "nowhere"]}]),
                          ["body", "satcom", "beams", 0, "links", 1]),
}


@pytest.mark.parametrize("case", sorted(BAD_BUDGET))
def test_bad_budget_or_beam_is_422_naming_the_field_and_stores_nothing(pg_stack, example, case):
    api = pg_stack.api
    doc = example("naval-geo-rain-fade")
    edit, loc = BAD_BUDGET[case]
    edit(doc)
    r = api.post("/scenarios", json=doc)
    assert r.status_code == 422, r.text
    assert loc in [d["loc"] for d in r.json()["detail"]], r.text
    assert doc["name"] not in _names(api)


def test_the_timeline_lists_the_satellites_in_use_and_their_delay(pg_stack, example):
    r = pg_stack.api.post("/timeline", json=example("naval-leo"))
    assert r.status_code == 200, r.text
    uses = [u for u in r.json()["satcom"] if u["terminal"] == "ship1"]
    geo = [u for u in uses if u["satellite"] == "geosat"]
    leo = sorted((u for u in uses if u["satellite"] != "geosat"), key=lambda u: u["t_start_s"])
    assert len(geo) == 1 and geo[0]["t_start_s"] == 0 and geo[0]["t_end_s"] == 900
    assert all(125 < d < 131 for _, d in geo[0]["delay_ms"])  # Dover to 5 E, about 128 ms per leg
    assert len(leo) >= 3  # two LEO handovers in 15 minutes
    for a, b in zip(leo, leo[1:]):
        assert b["t_start_s"] == pytest.approx(a["t_end_s"])
        assert b["satellite"] != a["satellite"]
    for u in leo:  # 1200 km: 4.0 ms overhead, under 12 ms at the 10 degree mask
        assert all(3.9 < d < 12.0 for _, d in u["delay_ms"])


def test_the_timeline_reports_access_with_modcod_only_when_asked(pg_stack, example):
    """``?access=true``: each pass of a satellite over a terminal, with the rain fade stepping ship1's MODCOD
    down; the scrubber's plain request carries no access report (the link budgets cost about a second)."""
    api = pg_stack.api
    doc = example("naval-geo-rain-fade")
    assert api.post("/timeline", json=doc).json()["access"] == []
    r = api.post("/timeline", params={"access": "true"}, json=doc)
    assert r.status_code == 200, r.text
    passes = r.json()["access"]
    assert {(p["terminal"], p["satellite"]) for p in passes} >= {("ship1", "kasat"), ("teleport", "kasat")}
    ship = next(p for p in passes if (p["terminal"], p["satellite"]) == ("ship1", "kasat"))
    assert (ship["rise_s"], ship["set_s"]) == (0.0, doc["run"]["duration_s"])  # GEO: one pass over the run
    rates = [s["down_capacity_mbps"] for s in ship["steps"]]
    assert len(rates) > 1 and min(rates) < rates[0]  # the fade


def test_sptcp_mptcp_and_mptcp_fdm_on_naval_leo(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=example("naval-leo")).json()["id"]
    r = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp", "mptcp-fdm"]})
    assert r.status_code == 202, r.text
    body, _ = _wait_comparison(pg_stack, sid, r.json()["id"], timeout_s=300)
    assert body["status"] == "succeeded", body
    res = body["result"]["strategies"]
    for name in ("mptcp", "mptcp-fdm"):  # GEO and LEO together: never without a path
        assert res[name]["summary"]["zero_s"] == 0
        assert res[name]["summary"]["mean_mbps"] > res["sptcp"]["summary"]["mean_mbps"]
    downs = [e for e in res["mptcp"]["events"] if e["kind"] == "link_down" and e["node"] == "ship1"]
    assert len(downs) >= 2  # LEO handovers
    subflows = {e["subflow"] for e in res["mptcp"]["events"] if e["kind"] == "subflow_up" and e["flow"] == "f1"}
    assert len({s for s in subflows if s.startswith("f1/leo-")}) >= 3

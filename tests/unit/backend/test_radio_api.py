"""Radio at the API edge: bad radio input is a 422 naming the field with nothing
stored, and ``POST /api/coverage`` answers the grid the editor draws."""

from __future__ import annotations

import copy
import math

import pytest

from tests.conftest import load_example
from tests.unit.backend_sqlite import api, fake_agent, queue, sessions  # noqa: F401

C = 299_792_458.0
HT20 = [(6.5, -82), (13, -79), (19.5, -77), (26, -74), (39, -70), (52, -66), (58.5, -65), (65, -64)]


def _count(api) -> int:
    r = api.get("/api/scenarios")
    assert r.status_code == 200, r.text
    return r.json()["count"]


@pytest.mark.parametrize("path,value,field", [
    (("nodes", 1, "radio", "tx_power_dbm"), 60, "tx_power_dbm"),          # 1 kW on Wi-Fi
    (("nodes", 1, "radio", "frequency_mhz"), -5180, "frequency_mhz"),     # a negative frequency
    (("radio", "propagation", "exponent"), 9, "exponent"),                # a path-loss exponent out of range
])
def test_bad_radio_input_is_422_naming_the_field_and_nothing_is_stored(api, path, value, field):
    doc = load_example("uav-relay-chain")
    before = _count(api)
    target = doc
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    r = api.post("/api/scenarios", json=doc)
    assert r.status_code == 422, r.text
    loc = r.json()["detail"][0]["loc"]
    assert loc[0] == "body" and loc[-1] == field, loc
    assert _count(api) == before
    # a stored scenario is not changed by a bad update either
    good = api.post("/api/scenarios", json=load_example("uav-relay-chain"))
    assert good.status_code == 201, good.text
    sid = good.json()["id"]
    assert api.put(f"/api/scenarios/{sid}", json=doc).status_code == 422
    assert api.get(f"/api/scenarios/{sid}").json()["version"] == 1


def test_coverage_grid_of_the_relay_chain(api):
    doc = load_example("uav-relay-chain")
    r = api.post("/api/coverage", json=doc, params={"t_s": 10, "cells": 40})
    assert r.status_code == 200, r.text
    g = r.json()
    assert (g["nx"], g["ny"]) == (40, 40) and len(g["rates_mbps"]) == 40 and len(g["rates_mbps"][0]) == 40
    assert g["access_points"] == ["ship-ap", "uav1", "uav2"]
    assert g["levels_mbps"] == [r for r, _ in HT20]
    # every cell against the textbook: Friis at 5180 MHz from the best access point, 20 dBm + 6 dBi + 0 dBi
    aps = [(0.0, 20.0, 20.0), (900.0, 20.0, 120.0), (1800.0, 20.0, 120.0)]
    lam = C / 5.18e9
    for j in range(0, 40, 3):
        for i in range(0, 40, 3):
            x = g["x_min_m"] + (i + 0.5) * g["cell_m"]
            y = g["y_min_m"] + (j + 0.5) * g["cell_m"]
            best = 0.0
            for ax, ay, az in aps:
                d = math.sqrt((x - ax) ** 2 + (y - ay) ** 2 + az**2)
                rx = 20 + 6 - 20 * math.log10(4 * math.pi * d / lam)
                best = max([best] + [rate for rate, sens in HT20 if rx >= sens])
            assert g["rates_mbps"][j][i] == pytest.approx(best), (i, j, x, y)


def test_coverage_refuses_a_bad_document_and_bad_query(api):
    doc = copy.deepcopy(load_example("uav-relay-chain"))
    doc["nodes"][1]["radio"]["tx_power_dbm"] = 60
    r = api.post("/api/coverage", json=doc)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "tx_power_dbm"
    r = api.post("/api/coverage", json=load_example("uav-relay-chain"), params={"cells": 1000})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "cells"]

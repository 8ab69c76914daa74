"""The Mininet-WiFi script generator (engine ``mininet-wifi``) and the ns-2 setdest export.

Generated scripts for every example compile, contain the expected nodes, links, link
parameters and replayed motion, and equal the checked-in expected files under
``expected/mininet_wifi/`` (reviewed by hand; regenerate with
``SUBFLOW_UPDATE_EXPECTED=1 pytest tests/linux/test_mininet_wifi_script.py`` and review the diff).
Mininet-WiFi itself cannot run on the CI machines (no mac80211_hwsim): only detection is
checked there; the scripts' behaviour against Mininet-WiFi's rules is checked with a fake
package in ``tests/unit/io/test_mininet_wifi_script_rules.py``.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest

from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario
from subflow_engines import all_engines, mininet_wifi
from subflow_engines.linux import EngineCannotRun

pytestmark = pytest.mark.linux

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected" / "mininet_wifi"
#: examples the script refuses, with the field it names (checked below): orbits, the standard's minimum
#: sensitivities picking the MCS (the kernel's rate control picks it on Mininet-WiFi), and voice flows (the script
#: runs only tcp)
REFUSED = {"naval-leo": ("nodes", "ephemeris"), "naval-leo-isl": ("nodes", "ephemeris"),
           "naval-geo-rain-fade": ("nodes", "ephemeris"), "naval-geo-shared-beam": ("nodes", "ephemeris"),
           "uav-relay-chain": ("radio", "rate_selection"), "naval-voice": ("flows", "kind")}
#: examples the script exports
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.json") if p.stem not in REFUSED)
CASES = [(ex, st) for ex in EXAMPLES for st in ("sptcp", "mptcp")]


def _doc(name: str) -> dict:
    return json.loads((ROOT / "examples" / f"{name}.json").read_text())


@pytest.mark.parametrize("example, strategy", CASES)
def test_script_compiles_and_matches_the_reviewed_file(example, strategy):
    doc = _doc(example)
    src = mininet_wifi.script_for(doc, strategy)
    compile(src, f"{example}-{strategy}.py", "exec")
    ast.parse(src)
    expected = EXPECTED / f"{example}-{strategy}.py"
    if os.environ.get("SUBFLOW_UPDATE_EXPECTED") == "1":
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.write_text(src)
    assert expected.exists(), f"missing {expected}; generate it with SUBFLOW_UPDATE_EXPECTED=1 and review it"
    assert src == expected.read_text()


@pytest.mark.parametrize("example, strategy", CASES)
def test_script_contains_the_scenario(example, strategy):
    doc = _doc(example)
    sc = load_scenario(doc)
    src = mininet_wifi.script_for(doc, strategy)
    kinds = [n.kind for n in sc.nodes]
    assert src.count("net.addStation(") == kinds.count("station")
    assert src.count("net.addAccessPoint(") == kinds.count("access_point")
    assert src.count("net.addHost(") == len(kinds) - kinds.count("station") - kinds.count("access_point")
    for link in sc.links:
        line = next(ln for ln in src.splitlines() if ln.endswith(f"# {link.id}") and "addLink" in ln)
        assert f"bw={link.bandwidth_mbps:g}," in line
        assert f"delay='{link.delay_ms:g}ms'" in line
        assert f"max_queue_size={link.queue_packets}" in line
        assert ("loss=" in line) == (link.loss > 0)
    mobile = [n for n in sc.nodes if n.kind in ("station", "access_point") and n.mobility.model != "static"]
    motion = json.loads(ast.literal_eval(re.search(r"^MOTION = json\.loads\((.*)\)$", src, re.M).group(1)))
    assert len(motion) == len(mobile)  # every moving wireless node is replayed by the script
    assert "net.mobility(" not in src and "startMobility" not in src
    if any(n.kind in ("station", "access_point") for n in sc.nodes):
        assert "ac_method='ssf')" in src and "net.configureWifiNodes()" in src
    assert src.count("-J") >= 2  # iperf3 JSON server and client
    assert ("MULTIPATH = True" in src) == (strategy == "mptcp")
    for n in sc.nodes:  # every scenario id is listed in the header, mapped to a generated name
        assert re.search(rf"^#   {re.escape(n.id)} -> \w+ \(", src, re.M)


@pytest.mark.parametrize("example, field", sorted(REFUSED.items()))
def test_orbits_and_rate_selection_are_refused_naming_the_field(example, field):
    from subflow.errors import FieldNotHonoured

    with pytest.raises(FieldNotHonoured) as exc:
        mininet_wifi.script_for(_doc(example), "mptcp")
    assert (exc.value.loc[0], exc.value.loc[-1]) == field
    assert "engine mininet-wifi does not honour it" in str(exc.value)


def test_adhoc_links_without_station_radios_add_no_adhoc_link():
    """Ad-hoc links join stations with a radio (docs/radio.md): naval-direct-move's stations have none."""
    doc = _doc("naval-direct-move")
    doc["radio"] = {**doc.get("radio", {}), "adhoc_links": True}
    src = mininet_wifi.script_for(doc, "sptcp")
    assert "cls=adhoc" not in src and "wlans=1," in src
    assert src == mininet_wifi.script_for(_doc("naval-direct-move"), "sptcp")


def test_naval_direct_move_details():
    src = mininet_wifi.script_for(_doc("naval-direct-move"), "mptcp")
    assert "net.addAccessPoint('ap1', ssid='ap1-ssid', mode='g', channel='1', position='1000,0,0', range=300" in src
    assert "net.addLink(sta1, r1, cls=TCLink, bw=50, delay='250ms', max_queue_size=1000)  # sta1-satcom" in src
    assert "net.addLink(ap1, h1, cls=TCLink, bw=1, delay='10ms', max_queue_size=100)  # uav-ship" in src
    # straight legs at 10 m/s over 800 m: 0 s -> 80 s
    assert '"sta1": [[0.0, 100.0, 0.0, 0.0], [80.0, 900.0, 0.0, 0.0], [100.0, 900.0, 0.0, 0.0]]' in src
    # the client binds to its SATCOM address, the UAV address is an MPTCP endpoint from the handover on
    assert "(0, 'sta1', 'h1', 5201, 3000000, 0, 100, '10.1.0.1', '10.255.0.1'),  # f1" in src
    assert '"flows": ["f1", "f2"], "name": "naval-direct-move"' in src
    assert "('sta1', 'sta1-eth1', '10.1.0.1/24')" in src and "AP_WIRED = {" in src and "'ap1': ['ap1-eth2']" in src
    assert "('sta1', '10.200.0.100', 3, 'sta1-wlan0', 'subflow')" in src.split("(60.0, ")[1]
    assert "sta1-wlan0', 'subflow')" not in src.split("(60.0, ")[0]
    native = mininet_wifi.script_for(_doc("naval-random-walk"), "mptcp", random_models="native")
    assert "net.setMobilityModel(time=0, model='RandomWalk'" in native and "seed=" in native


def test_ns2_setdest_trace():
    trace = mininet_wifi.ns2_setdest(_doc("naval-direct-move"))
    lines = trace.splitlines()
    assert "$node_(0) set X_ 100.000000" in lines
    assert '$ns_ at 0.000000 "$node_(0) setdest 900.000000 0.000000 10.000000"' in lines
    assert '$ns_ at 0.000000 "$node_(1) setdest 1000.000000 -100.000000 10.000000"' in lines


def test_engine_is_listed_with_its_availability():
    info = all_engines()["mininet-wifi"]
    caps = info.capabilities()
    assert caps["available"] == mininet_wifi.available()
    assert set(caps["supports"]["host"]) == {"mac80211_hwsim", "hostapd", "mn_wifi", "root", "iperf3"}
    if not mininet_wifi.available():
        with pytest.raises(EngineCannotRun, match="mininet-wifi"):
            mininet_wifi.run(resolve_plan(_doc("naval-direct-move"), "sptcp", "mininet-wifi"))

"""Access point uplinks and station ad-hoc links in the Mininet-WiFi script.

The relay chain (examples/uav-relay-chain.json: ship-ap <- uav1 <- uav2, stations with radios forming
ad-hoc links) is exported with every access point on channel 36 (a 4-address client shares its access
point's radio, :func:`subflow.io.exports._refuse_backhaul`) and ``rate_selection: error_rate`` (the
kernel picks the MCS on Mininet-WiFi). The script runs against the fake package
(``fake_mininet_wifi.py``: its ``_4address`` and ``adhoc`` model Mininet-WiFi's interface names and
port numbering), and its calls are checked against the signatures of Mininet-WiFi's own source
(:data:`SIGNATURES`).
"""

from __future__ import annotations

import ast
import copy

import pytest

from subflow.errors import FieldNotHonoured
from subflow.io.exports import _Names, script_for, uplink_links
from subflow.scenario.document import load_scenario

from tests.conftest import load_example
from tests.unit.io.fake_mininet_wifi import run_with_fake_mininet

#: The Mininet-WiFi signatures the generated script relies on, as written in intrig-unicamp/mininet-wifi
#: (commit eaa5accbddee, 2025-11-19). ``positional``: the parameters after ``self``; ``keywords``: the
#: keyword names the function takes or reads from its ``**params``.
SIGNATURES = {
    # mn_wifi/net.py, Mininet_wifi.addLink(self, node1, node2=None, port1=None, port2=None, cls=None, **params)
    "Mininet_wifi.addLink": {"positional": ["node1", "node2", "port1", "port2", "cls"],
                             "keywords": {"node1", "node2", "port1", "port2", "cls"}},
    # mn_wifi/link.py, _4address.__init__(self, node1, node2, port1=None, port2=None, **params): params go to
    # IntfWireless.config; the script passes none
    "_4address": {"positional": ["node1", "node2", "port1", "port2"], "keywords": set()},
    # mn_wifi/link.py, adhoc.__init__(self, node, intf, proto_args='', **params): params read through its
    # defaults dict (ibss, ht_cap, passwd, ssid, proto, mode, channel, txpower, ap_scan, bitrates)
    "adhoc": {"positional": ["node", "intf", "proto_args"],
              "keywords": {"intf", "proto_args", "ibss", "ht_cap", "passwd", "ssid", "proto", "mode", "channel",
                           "txpower", "ap_scan", "bitrates"}},
    # mn_wifi/net.py, Mininet_wifi.__init__(self, accessPoint=..., link=..., wmediumd_mode=..., config4addr=False,
    # ..., ac_method=None, **kwargs); controller goes through **kwargs to mininet/net.py Mininet.__init__
    "Mininet_wifi": {"positional": [],
                     "keywords": {"accessPoint", "station", "link", "wmediumd_mode", "config4addr", "ac_method",
                                  "controller"}},
    # mn_wifi/net.py, Mininet_wifi.configureWifiNodes(self) -> configureNodes(self)
    "configureWifiNodes": {"positional": [], "keywords": set()},
}
#: names the script imports from mn_wifi.link (mn_wifi/link.py: class wmediumd, class _4address, class adhoc)
LINK_CLASSES = {"wmediumd", "_4address", "adhoc"}


def _chain() -> dict:
    doc = copy.deepcopy(load_example("uav-relay-chain"))
    doc["radio"]["rate_selection"] = "error_rate"
    for n in doc["nodes"]:
        if n["kind"] == "access_point":
            n["radio"]["channel"] = 36
    return doc


def _calls(result: dict, kind: str) -> list:
    return [c for c in result["calls"] if c[0] == kind]


def _route_cmds(result: dict, node: str) -> list[str]:
    return [c[2] for c in result["calls"] if c[0] == "cmd" and c[1] == node and c[2].startswith("ip route replace")]


@pytest.fixture(scope="module")
def chain_scripts() -> dict[str, str]:
    return {st: script_for(_chain(), st) for st in ("sptcp", "mptcp")}


def test_uplinks_are_4address_links_root_first_and_shift_the_wired_ports(tmp_path, chain_scripts):
    """mn_wifi/link.py _4address: ship-ap (ap1) serves uav1 (ap2), which serves uav2 (ap3); each link puts
    <client>.wds0 and <uplink>-wlan1.sta<w> on the port the uplink's newPort() gives, so ship-ap's wired
    link to the ship takes port 3 (wlan1 on 1, its 4-address interface on 2)."""
    result = run_with_fake_mininet(tmp_path, chain_scripts["mptcp"])
    (mn,) = _calls(result, "Mininet_wifi")
    assert mn[1]["config4addr"] == "True" and mn[1]["wmediumd_mode"] == "'interference'"
    assert [c[1:] for c in _calls(result, "addLink-4address")] == [
        [["ap1", "ap2"], [None, None], {}, True], [["ap2", "ap3"], [None, None], {}, True]]
    assert [c[1:] for c in _calls(result, "4addr-interfaces")] == [
        [["ap1-wlan1.sta1", 2], ["ap2.wds0", 2]], [["ap2-wlan1.sta1", 3], ["ap3.wds0", 3]]]
    assert _calls(result, "port-collision") == [] and _calls(result, "missing-dev") == []
    (wired,) = _calls(result, "addLink")
    assert wired[1:3] == [["ap1", "h1"], ["ap1-eth3", "h1-eth0"]]
    assert result["shaping"]["ap1"]["ap1-eth3"] is not None  # reapplied after Open vSwitch took the port
    order = [c[0] for c in result["calls"] if c[0] in (
        "configureWifiNodes", "addLink-4address", "addLink-adhoc", "addLink", "build")]
    assert order == ["configureWifiNodes"] + ["addLink-4address"] * 2 + ["addLink-adhoc"] * 3 + ["addLink", "build"]


def test_uplink_order_is_what_keeps_mininet_wifis_ports_apart(tmp_path, chain_scripts):
    """The fake's rule, shown: the same two uplinks added leaf first would put ap2's 4-address client on
    port 2, already its 4-address interface towards ap3 (Mininet-WiFi's addWIntf replaces it)."""
    src = chain_scripts["sptcp"]
    first = "    net.addLink(ap1, ap2, cls=_4address)"
    second = "    net.addLink(ap2, ap3, cls=_4address)"
    lines = src.splitlines()
    i, j = (next(k for k, ln in enumerate(lines) if ln.startswith(p)) for p in (first, second))
    assert i < j
    lines[i], lines[j] = lines[j], lines[i]
    result = run_with_fake_mininet(tmp_path, "\n".join(lines) + "\n")
    assert [c[1:] for c in _calls(result, "port-collision")] == [["ap2", 2]]


def test_uplink_ports_with_two_clients_of_one_access_point():
    """Two access points on one uplink: its wlan1.sta1 and wlan1.sta2, ports 2 and 3; nodes listed leaf
    first are still linked root first."""
    doc = _chain()
    for n in doc["nodes"]:
        if n["id"] == "uav2":
            n["uplink"] = "ship-ap"
    doc["nodes"] = [doc["nodes"][3], doc["nodes"][2], *doc["nodes"][:2], *doc["nodes"][4:]]
    sc = load_scenario(doc)
    names = _Names(sc)
    links, next_port = uplink_links(sc, names)
    assert [(ln["up"], ln["client"], ln["up_intf"], ln["client_intf"], ln["port"]) for ln in links] == [
        ("ship-ap", "uav2", "ap3-wlan1.sta1", "ap1.wds0", 2), ("ship-ap", "uav1", "ap3-wlan1.sta2", "ap2.wds0", 3)]
    assert next_port == {"uav2": 3, "uav1": 4, "ship-ap": 4}


def test_adhoc_links_join_one_ibss_on_an_extra_wlan_and_routes_go_via_the_peer(tmp_path, chain_scripts):
    """mn_wifi/link.py adhoc: each station with a radio (sta1-sta3, not sta4) has one wlan more than the
    access point networks and joins the IBSS on it; the plan's hop adhoc:sta1~sta2 is a route via the
    peer's ad-hoc address out of that wlan, and its MPTCP endpoint is added there."""
    result = run_with_fake_mininet(tmp_path, chain_scripts["mptcp"], duration_s=1)
    stations = {c[1]: c[2] for c in _calls(result, "addStation")}
    assert {k: v["wlans"] for k, v in stations.items()} == {"sta1": "2", "sta2": "2", "sta3": "2", "sta4": "1"}
    assert [c[1:] for c in _calls(result, "addLink-adhoc")] == [
        [s, f"{s}-wlan1", {"ssid": "'adhoc-ssid'", "mode": "'a'", "channel": "36", "ht_cap": "'HT20'"}]
        for s in ("sta1", "sta2", "sta3")]
    assert _calls(result, "missing-dev") == []
    cmds = [c[2] for c in result["calls"] if c[0] == "cmd"]
    for k, s in enumerate(("sta1", "sta2", "sta3")):
        assert f"ip addr add 10.201.0.{k + 1}/24 dev {s}-wlan1" in cmds
    # f2 (sta2 -> ship): one subflow relayed by sta1 over the ad-hoc link, one through uav2 (planned; its
    # route waits for wlan0's association, which the fake's range rule does not give a radio's access point)
    assert any("via 10.201.0.1 dev sta2-wlan1" in c for c in _route_cmds(result, "sta2"))
    assert "('sta2', 103, '10.255.0.1', '10.200.0.1', 'sta2-wlan0')" in chain_scripts["mptcp"]
    assert any("ip route replace 10.201.0.2/32 via 10.201.0.2 dev sta1-wlan1" in c for c in _route_cmds(result, "sta1"))
    assert any(c.startswith("ip mptcp endpoint add 10.201.0.2 dev sta2-wlan1") for c in cmds)
    # the ad-hoc wlan is never associated to an access point by the range rule
    assert not [c for c in _calls(result, "association") if c[1].endswith("-wlan1")]


def test_the_whole_relay_chain_runs_through_on_the_fake(tmp_path, chain_scripts):
    result = run_with_fake_mininet(tmp_path, chain_scripts["sptcp"], duration_s=None)
    assert [c for c in result["calls"] if c[0] in ("missing-dev", "mobility-thread-died", "port-collision")] == []
    clients = [c[2] for c in result["calls"] if c[0] == "cmd" and "iperf3" in c[2] and " -c " in c[2]]
    assert len(clients) == 3


@pytest.mark.parametrize("strategy", ["sptcp", "mptcp"])
def test_the_script_calls_mininet_wifi_as_its_source_defines(chain_scripts, strategy):
    """Every 4-address and ad-hoc addLink, the network's constructor and configureWifiNodes pass only
    parameters of the signatures in :data:`SIGNATURES`."""
    tree = ast.parse(chain_scripts[strategy])
    imported = {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "mn_wifi.link"
                for a in node.names}
    assert imported == LINK_CLASSES
    seen = set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
        kw = {k.arg for k in call.keywords}
        if name == "addLink":
            cls = next((k.value.id for k in call.keywords if k.arg == "cls"), None)
            if cls not in ("_4address", "adhoc"):
                continue
            add = SIGNATURES["Mininet_wifi.addLink"]
            assert len(call.args) <= len(add["positional"])
            # addLink passes node1 (and node2 for _4address) on, with **params, to the class
            sig = SIGNATURES[cls]
            assert len(call.args) == (2 if cls == "_4address" else 1)
            assert kw - {"cls"} <= sig["keywords"] and (cls != "adhoc" or "intf" in kw), (cls, kw)
            seen.add(cls)
        elif name in ("Mininet_wifi", "configureWifiNodes"):
            assert not call.args and kw <= SIGNATURES[name]["keywords"], (name, kw)
            seen.add(name)
    assert seen == {"_4address", "adhoc", "Mininet_wifi", "configureWifiNodes"}


def _refusal(doc: dict) -> FieldNotHonoured:
    with pytest.raises(FieldNotHonoured) as exc:
        script_for(doc, "sptcp")
    assert "engine mininet-wifi does not honour it" in str(exc.value)
    return exc.value


def test_an_uplink_on_another_channel_is_refused_naming_the_field():
    """The example as written: uav1 serves its cell on channel 40, its uplink ship-ap on 36."""
    doc = _chain()
    doc["nodes"][2]["radio"]["channel"] = 40
    err = _refusal(doc)
    assert err.loc == ["nodes", 2, "uplink"] and "one channel" in str(err)


def test_an_uplink_to_another_radio_network_is_refused_naming_the_field():
    doc = _chain()
    doc["nodes"][1]["network"] = "lte"
    assert _refusal(doc).loc == ["nodes", 2, "uplink"]


def test_adhoc_radios_on_two_channels_are_refused_naming_the_field():
    doc = _chain()
    doc["nodes"][5]["radio"]["frequency_mhz"] = 5200
    assert _refusal(doc).loc == ["nodes", 5, "radio", "frequency_mhz"]


def test_access_points_without_radio_take_their_uplinks_channel():
    doc = _chain()
    for n in doc["nodes"]:
        n.pop("radio", None)
    doc["radio"] = {"adhoc_links": False}
    src = script_for(doc, "sptcp")
    tunes = [ln.split("mode=")[1].split(", position")[0] for ln in src.splitlines() if "addAccessPoint(" in ln]
    assert tunes == ["'g', channel='1'"] * 3
    assert "cls=adhoc" not in src and "from mn_wifi.link import wmediumd, _4address\n" in src


def test_adhoc_links_alone_shift_the_stations_wired_ports(tmp_path):
    """naval-direct-move with radios on both stations and ad-hoc links, no uplink: no config4addr; each
    station's ad-hoc wlan1 holds port 1 (mn_wifi/link.py managed, then adhoc on the same port), so its
    SATCOM link is <sta>-eth2."""
    doc = copy.deepcopy(load_example("naval-direct-move"))
    for n in doc["nodes"]:
        if n["kind"] == "station":
            n["radio"] = {"tx_power_dbm": 15}
    doc["radio"] = {"adhoc_links": True}
    src = script_for(doc, "mptcp")
    assert "config4addr" not in src and "from mn_wifi.link import wmediumd, adhoc\n" in src
    result = run_with_fake_mininet(tmp_path, src)
    assert [c[1:] for c in _calls(result, "addLink-adhoc")] == [
        [s, f"{s}-wlan1", {"ssid": "'adhoc-ssid'", "mode": "'g'", "channel": "1"}] for s in ("sta1", "sta2")]
    assert _calls(result, "missing-dev") == [] and _calls(result, "addLink-4address") == []
    wired = {c[1][0]: c[2][0] for c in _calls(result, "addLink") if c[1][0].startswith("sta")}
    assert wired == {"sta1": "sta1-eth2", "sta2": "sta2-eth2"}


def test_an_uplink_interface_name_longer_than_linux_allows_is_refused_naming_the_field():
    """Mininet-WiFi names the tenth client's interface at ap10 ap10-wlan1.sta10: 16 characters."""
    from subflow.io.exports import _refuse_backhaul

    doc = copy.deepcopy(load_example("naval-direct-move"))
    aps = [{"id": f"a{k:02d}", "kind": "access_point", "position": {"x_m": 10 * k, "y_m": 0}, "range_m": 500,
            **({"uplink": "a10"} if k > 10 else {})} for k in range(1, 21)]
    doc["nodes"] = [n for n in doc["nodes"] if n["kind"] != "access_point"] + aps
    doc["links"] = [ln for ln in doc["links"] if ln["src"] != "uav" and ln["dst"] != "uav"]
    sc = load_scenario(doc)
    with pytest.raises(FieldNotHonoured) as exc:
        _refuse_backhaul(sc, _Names(sc))
    i = next(k for k, n in enumerate(doc["nodes"]) if n["id"] == "a20")
    assert exc.value.loc == ["nodes", i, "uplink"] and "'ap10-wlan1.sta10'" in str(exc.value)

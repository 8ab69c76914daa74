"""Generated Mininet-WiFi scripts against the rules of Mininet-WiFi's own source.

One test per defect seen when the scripts ran on real Mininet-WiFi (Mininet-WiFi at
intrig-unicamp/mininet-wifi HEAD, Mininet 2.3.1b4). Each runs the generated script against
the FAKE package of :mod:`tests.unit.io.fake_mininet_wifi`, which models the rule of the real
source named in the test (and in that module), on a fake clock, or reads the script's text:

1. wired interface names follow Mininet's port numbering (``Node.newPort``, ``portBase``);
2. no ``mobility()`` time that Mininet-WiFi's tracked mobility cannot take (whole seconds only,
   ``Tracked.create_coord``);
3. every leg of a multi-leg path is replayed (Mininet-WiFi keeps one start/stop pair per node);
4. iperf3 reports are collected once iperf3 has written them;
5. a scenario without radios starts neither wmediumd nor ``configureWifiNodes``;
6. the access points' wired shaping holds after Open vSwitch takes their ports;
7. routes and MPTCP endpoints follow association.
"""

from __future__ import annotations

import copy
import json
import math
import re

import pytest

from subflow.io.exports import MOTION_TICK_S, first_wired_port, script_for
from subflow.scenario.document import load_scenario
from subflow.space.mobility import to_local, trajectory

from tests.conftest import load_example
from tests.unit.io.fake_mininet_wifi import run_with_fake_mininet


def _cmds(result: dict, node: str | None = None) -> list[tuple[str, str, float]]:
    return [(c[1], c[2], c[3]) for c in result["calls"] if c[0] == "cmd" and (node is None or c[1] == node)]


def _payload(result: dict) -> dict:
    text = result["stdout"]
    return json.loads(text.split("SUBFLOW-RESULT-BEGIN", 1)[1].split("SUBFLOW-RESULT-END", 1)[0])


def _t0(result: dict) -> float:
    """Fake-clock time of the run's t = 0: a client's launch command minus its ``launched_s``."""
    launched = _payload(result)["launched_s"]
    first = next(c for c in _cmds(result) if "iperf3" in c[1] and " -c " in c[1])
    return first[2] - min(launched.values())


def _associations(result: dict, wlan: str) -> list[tuple[str | None, float]]:
    return [(c[2], c[3]) for c in result["calls"] if c[0] == "association" and c[1] == wlan]


# ----------------------------------------------------------------------------- 1. port numbering


def _two_networks() -> dict:
    """naval-direct-move with a second radio network (an LTE-like tower wired to the ship): each
    station has two wlans."""
    doc = copy.deepcopy(load_example("naval-direct-move"))
    doc["nodes"].append({"id": "tower", "kind": "access_point", "network": "lte", "position": {"x_m": 0, "y_m": 0},
                         "range_m": 500})
    doc["links"].append({"id": "tower-ship", "src": "tower", "dst": "ship", "bandwidth_mbps": 5, "delay_ms": 5,
                         "queue_packets": 100})
    return doc


@pytest.mark.parametrize("doc, wired", [
    (load_example("naval-direct-move"), {"sta1": "sta1-eth1", "sta2": "sta2-eth1", "h1": "h1-eth0"}),
    (_two_networks(), {"sta1": "sta1-eth2", "sta2": "sta2-eth2", "h1": "h1-eth0"}),
])
def test_interface_names_follow_mininet_wifi_port_numbering(tmp_path, doc, wired):
    """Rule (mininet/node.py Node.newPort, mininet/link.py Link.intfName, mn_wifi/link.py managed,
    mn_wifi/net.py configMasterIntf): a station's wlans hold ports 0..W-1, so its first wired
    interface is <sta>-eth<W>; an access point's wlan1 holds port 1, so its first is <ap>-eth2."""
    src = script_for(doc, "mptcp")
    result = run_with_fake_mininet(tmp_path, src)
    missing = [c for c in result["calls"] if c[0] == "missing-dev"]
    assert missing == []
    for node, itf in wired.items():
        assert any(f"dev {itf}" in c[1] for c in _cmds(result, node)), (node, itf)
    assert "ap1-eth2" in result["shaping"]["ap1"]


def test_first_wired_port_by_kind():
    assert [first_wired_port(k, 1) for k in ("station", "access_point", "host", "switch")] == [1, 2, 0, 0]
    assert first_wired_port("station", 3) == 3


# ----------------------------------------------------------------------------- 2. integer times


def test_no_mobility_time_mininet_wifi_cannot_take(tmp_path):
    """Rule (mn_wifi/mobility.py Tracked.create_coord: range((endTime - startTime) * 10)): a float
    time kills the mobility thread. The fake computes that range on mobility(..., 'stop'); no
    thread may die, and the stations must be where the plan puts them."""
    result = run_with_fake_mininet(tmp_path, script_for(load_example("naval-direct-move"), "sptcp"), duration_s=None)
    assert [c for c in result["calls"] if c[0] == "mobility-thread-died"] == []
    for c in result["calls"]:
        if c[0] in ("mobility", "startMobility", "stopMobility", "setMobilityModel"):
            times = [c[3]] if c[0] == "mobility" else [v for k, v in c[2].items() if k == "time"]
            assert all(re.fullmatch(r"-?\d+", t) for t in times), c
    t0 = _t0(result)
    moves = [(c[3] - t0, c[2]) for c in result["calls"] if c[0] == "setPosition" and c[1] == "sta1"]
    at_40 = [p for t, p in moves if t <= 40.0 + 1e-9][-1]
    assert [float(v) for v in at_40.split(",")] == pytest.approx([500.0, 0.0, 0.0], abs=1.0)


# ----------------------------------------------------------------------------- 3. multi-leg paths


def test_every_leg_of_a_multi_leg_path_is_replayed(tmp_path):
    """Rule (mn_wifi/mobility.py ConfigMobility): one start/stop pair per node, so mobility() cannot
    carry a random walk's legs. The script replays them itself; at the middle of every leg of every
    station the replayed position is the planned one (within one tick of motion)."""
    doc = load_example("naval-random-walk")
    result = run_with_fake_mininet(tmp_path, script_for(doc, "sptcp"), duration_s=None)
    starts = {}
    for c in result["calls"]:
        if c[0] == "mobility" and c[2] == "start":
            starts[c[1]] = starts.get(c[1], 0) + 1
    assert all(n == 1 for n in starts.values())
    t0 = _t0(result)
    sc = to_local(load_scenario(doc))
    checked = 0
    for name, st in (("sta1", sc.nodes[3]), ("sta2", sc.nodes[4])):
        legs = trajectory(st, sc.run.duration_s, sc.run.seed)
        assert len(legs) > 3
        moves = [(c[3] - t0, [float(v) for v in c[2].split(",")]) for c in result["calls"]
                 if c[0] == "setPosition" and c[1] == name]
        for leg in legs:
            tm = round((leg.t0_s + leg.t1_s) / 2 / MOTION_TICK_S) * MOTION_TICK_S
            if not leg.t0_s <= tm <= leg.t1_s or tm >= sc.run.duration_s:
                continue
            f = (tm - leg.t0_s) / (leg.t1_s - leg.t0_s)
            want = (leg.x0_m + f * (leg.x1_m - leg.x0_m), leg.y0_m + f * (leg.y1_m - leg.y0_m))
            got = [p for t, p in moves if t <= tm + 1e-6][-1]
            assert math.dist(got[:2], want) <= 0.05, (name, tm, got, want)
            checked += 1
    assert checked > 6


# ----------------------------------------------------------------------------- 4. results when written


def test_results_are_collected_after_iperf3_has_written_them(tmp_path):
    """iperf3 -J writes its report when it exits, which can be seconds after the flow's planned end
    (the fake's iperf3 writes one second of real time after it starts, while the run's clock is
    already past its end): every report read must be the complete JSON."""
    src = script_for(load_example("uav-backhaul-planning"), "sptcp")
    result = run_with_fake_mininet(tmp_path, src, duration_s=1, iperf="late", real_sleep_s=0.05)
    payload = _payload(result)
    assert payload["interrupted"] == []
    assert payload["clock_lag_s"] >= 0.0  # how late the run's clock ran, for the engine to judge
    for fid in ("f1", "f2"):
        for role in ("client", "server"):
            doc = json.loads(payload["flows"][fid][role])
            assert "error" not in doc and doc["intervals"], (fid, role, doc)


# ----------------------------------------------------------------------------- 5. no radios, no wmediumd


def test_a_wired_only_scenario_starts_no_wmediumd(tmp_path):
    """Rule (mn_wifi/net.py configureNodes): configureWifiNodes loads mac80211_hwsim and starts wmediumd
    when link=wmediumd; a scenario without stations and access points needs neither."""
    src = script_for(load_example("hsln-10node"), "sptcp")
    assert "import wmediumd" not in src and "configureWifiNodes" not in src
    result = run_with_fake_mininet(tmp_path, src)
    kinds = [c[0] for c in result["calls"]]
    assert "configureWifiNodes" not in kinds
    (init,) = [c[1] for c in result["calls"] if c[0] == "Mininet_wifi"]
    assert "link" not in init and "wmediumd_mode" not in init
    radio = run_with_fake_mininet(tmp_path / "radio", script_for(load_example("naval-direct-move"), "sptcp"))
    assert "configureWifiNodes" in [c[0] for c in radio["calls"]]
    (init,) = [c[1] for c in radio["calls"] if c[0] == "Mininet_wifi"]
    assert init["link"] == "wmediumd"


# ----------------------------------------------------------------------------- 6. backhaul shaping


def test_access_point_backhaul_shaping_holds_after_open_vswitch_starts(tmp_path):
    """Rule (mn_wifi/node.py OVSAP.start/TCReapply): Open vSwitch resets the qdisc of the ports it adds
    and Mininet-WiFi reapplies only wireless interfaces; the UAV's 1 Mbit/s backhaul must still be
    shaped at the access point's side when the flows run."""
    result = run_with_fake_mininet(tmp_path / "a", script_for(load_example("uav-backhaul-planning"), "sptcp"))
    assert result["shaping"]["ap1"]["ap1-eth2"] == {"bw": 1, "delay": "10ms", "max_queue_size": 100}
    assert result["shaping"]["h1"]["h1-eth1"] == {"bw": 1, "delay": "10ms", "max_queue_size": 100}


def test_every_interface_carries_one_segment_per_packet(tmp_path):
    """netem drops a whole GSO skb (up to 64 KB) as one loss and tc queue limits count skbs: every
    interface of every node (hosts, routers, stations' wlans, the access points' ports) is set to one
    segment per skb before any flow starts, as the linux engine's interfaces are (network.py)."""
    result = run_with_fake_mininet(tmp_path, script_for(load_example("uav-backhaul-planning"), "sptcp"))
    calls = result["calls"]
    first_iperf = next(k for k, c in enumerate(calls) if c[0] == "cmd" and "iperf3" in c[2])
    capped = {(c[1], re.search(r"dev (\S+) gso_max_segs 1$", c[2]).group(1))
              for c in calls[:first_iperf] if c[0] == "cmd" and "gso_max_segs 1" in c[2]}
    devices = {(node, name) for c in calls if c[0] == "addLink" for node, name in zip(c[1], c[2])}
    assert devices and devices <= capped
    assert ("sta1", "sta1-wlan0") in capped and ("ap1", "ap1-wlan1") in capped


# ----------------------------------------------------------------------------- 7. routes follow association


def test_sptcp_route_moves_to_the_uav_when_the_station_associates(tmp_path):
    """As the fluid and linux engines: the flow leaves SATCOM for the UAV when the station enters its
    range (the plan's handover, t = 60 s); the station's route out of its wlan is installed once
    Mininet-WiFi reports the wlan associated, never before."""
    result = run_with_fake_mininet(tmp_path, script_for(load_example("naval-direct-move"), "sptcp"), duration_s=None)
    t0 = _t0(result)
    (assoc,) = [t - t0 for ap, t in _associations(result, "sta1-wlan0") if ap == "ap1"]
    assert assoc == pytest.approx(60.0, abs=0.2)
    routes = [(t - t0, c) for _n, c, t in _cmds(result, "sta1") if c.startswith("ip route replace 10.255.0.1/32")]
    assert [c.split(" dev ")[1].split()[0] for _t, c in routes] == ["sta1-eth1", "sta1-wlan0"]
    assert routes[0][0] < 0 and assoc <= routes[1][0] <= assoc + MOTION_TICK_S + 1e-6


def test_sptcp_starts_on_the_uav_where_the_plan_does(tmp_path):
    result = run_with_fake_mininet(tmp_path, script_for(load_example("uav-backhaul-planning"), "sptcp"))
    (flow,) = [c for _n, c, _t in _cmds(result, "sta1") if "iperf3" in c]
    bind = re.search(r" -B (\S+)", flow).group(1)
    table = next(c for _n, c, _t in _cmds(result, "sta1") if c.startswith(f"ip rule add from {bind} "))
    routes = [c for _n, c, _t in _cmds(result, "sta1") if c.startswith("ip route replace")
              and c.endswith(f"table {table.split('lookup ')[1].split()[0]}")]
    assert routes and all("dev sta1-wlan0" in c for c in routes)


def test_mptcp_opens_the_uav_subflow_when_the_station_associates(tmp_path):
    """MPTCP's in-kernel path manager does not retry a subflow whose SYN went out before the
    association: the wlan endpoint is added when Mininet-WiFi reports the association (here at the
    plan's handover, 60 s), as mptcpd would, and not at set-up."""
    result = run_with_fake_mininet(tmp_path, script_for(load_example("naval-direct-move"), "mptcp"), duration_s=None)
    t0 = _t0(result)
    (assoc,) = [t - t0 for ap, t in _associations(result, "sta1-wlan0") if ap == "ap1"]
    adds = [t - t0 for _n, c, t in _cmds(result, "sta1") if c.startswith("ip mptcp endpoint add 10.200.0.100 ")]
    carrier = [t - t0 for c in result["calls"] if c[0] == "carrier" and c[1] == "sta1-wlan0" and c[2]
               for t in [c[3]]]
    assert len(adds) == 1 and assoc < carrier[0] <= adds[0] <= carrier[0] + 1e-6
    assert "dev sta1-wlan0" in next(c for _n, c, _t in _cmds(result, "sta1")
                                    if c.startswith("ip mptcp endpoint add 10.200.0.100 "))


def test_mptcp_adds_the_uav_endpoint_once_the_wlan_has_its_carrier(tmp_path):
    """Mininet-WiFi reports a wlan associated when it asks for the association; the wlan's carrier comes
    up when mac80211 completes it, seconds later. A join sent before that fails its neighbour resolution,
    the kernel closes it (host unreachable) and its path manager never retries: on Mininet-WiFi in the VM,
    naval-geo's ships never had a UAV subflow (run 7 of docs/validation/mininet_wifi.md). So the endpoint
    waits for the carrier (here 2 s after the flag, the fake's rule), then is added at once."""
    result = run_with_fake_mininet(tmp_path, script_for(load_example("naval-geo"), "mptcp"), duration_s=140.0)
    t0 = _t0(result)
    assoc = [t - t0 for ap, t in _associations(result, "sta1-wlan0") if ap == "ap1"]
    assert assoc and assoc[0] == pytest.approx(18.0, abs=0.2)  # the plan's first UAV association of ship 1
    adds = [t - t0 for _n, c, t in _cmds(result, "sta1") if c.startswith("ip mptcp endpoint add 10.200.0.100 ")]
    assert len(adds) == 1 and assoc[0] + 2.0 - 1e-6 <= adds[0] <= assoc[0] + 2.0 + MOTION_TICK_S + 1e-6
    # the ship's satellite endpoint, on a wire, is added at set-up without waiting
    (geo,) = [t - t0 for _n, c, t in _cmds(result, "sta1") if c.startswith("ip mptcp endpoint add 10.1.0.1 ")]
    assert geo < 0


# ----------------------------------------------------------------------------- every example


EXPORTED = ["hsln-10node", "naval-direct-move", "naval-geo", "naval-random-walk", "uav-backhaul-planning"]


@pytest.mark.parametrize("example", EXPORTED)
@pytest.mark.parametrize("strategy", ["sptcp", "mptcp"])
def test_every_exported_example_runs_through_on_the_fake(tmp_path, example, strategy):
    """The whole run on the fake clock: every device a command names exists on its node, no mobility
    thread dies, every flow's client starts once, and every route is installed out of an existing
    interface of the node (Mininet-WiFi's names, rules 1, 2 and 7)."""
    result = run_with_fake_mininet(tmp_path, script_for(load_example(example), strategy), duration_s=None)
    assert [c for c in result["calls"] if c[0] in ("missing-dev", "mobility-thread-died")] == []
    clients = [c for _n, c, _t in _cmds(result) if "iperf3" in c and " -c " in c]
    assert len(clients) == len(result["scenario"]["flows"])
    assert any(c.startswith("ip route replace ") for _n, c, _t in _cmds(result))


# ----------------------------------------------------------------------------- radio fields


def _with_radio(ap_radio: dict, propagation: dict | None = None) -> dict:
    doc = copy.deepcopy(load_example("naval-direct-move"))
    for n in doc["nodes"]:
        if n["id"] == "uav":
            n["radio"] = ap_radio
        if n["id"] == "sta1":
            n["radio"] = {"tx_power_dbm": 15, "antenna_gain_dbi": 2}
    doc["radio"] = {"propagation": propagation or {"model": "log_distance", "exponent": 2.5, "system_loss_db": 3}}
    return doc


def test_radio_fields_reach_mininet_wifi(tmp_path):
    """Rule (mn_wifi/link.py WirelessLink.set_attrs/assign_params_to_intf: txpower, antennaGain,
    antennaHeight, channel, mode are node parameters; mn_wifi/net.py config_range: an access point
    given a range gets the transmit power that reaches it, one without gets the range its model gives;
    mn_wifi/propagationModels.py: exp, sL linear)."""
    doc = _with_radio({"tx_power_dbm": 20, "antenna_gain_dbi": 6, "channel": 36, "phy": "n", "antenna_height_m": 10})
    result = run_with_fake_mininet(tmp_path, script_for(doc, "sptcp"))
    (ap,) = [c[2] for c in result["calls"] if c[0] == "addAccessPoint"]
    assert {k: ap[k] for k in ("txpower", "antennaGain", "antennaHeight", "channel", "mode")} == {
        "txpower": "20", "antennaGain": "6", "antennaHeight": "10", "channel": "'36'", "mode": "'n'"}
    assert "range" not in ap
    stations = {c[1]: c[2] for c in result["calls"] if c[0] == "addStation"}
    assert (stations["sta1"]["txpower"], stations["sta1"]["antennaGain"]) == ("15", "2")
    assert (stations["sta2"]["txpower"], stations["sta2"]["antennaGain"]) == ("20", "0")  # NodeRadio's defaults
    (ppm,) = [c[2] for c in result["calls"] if c[0] == "setPropagationModel"]
    assert ppm["model"] == "'logDistance'" and float(ppm["exp"]) == 2.5
    assert float(ppm["sL"]) == pytest.approx(10 ** 0.3, rel=1e-5)


@pytest.mark.parametrize("ap_radio, propagation, loc", [
    ({"tx_power_dbm": 20.5}, None, ["nodes", 2, "radio", "tx_power_dbm"]),
    ({"frequency_mhz": 2413}, None, ["nodes", 2, "radio", "frequency_mhz"]),
    ({"phy": "n", "channel": 36, "channel_width_mhz": 40}, None, ["nodes", 2, "radio", "channel_width_mhz"]),
    ({}, {"model": "two_ray"}, ["radio", "propagation", "model"]),
    ({}, {"model": "log_distance", "reference_distance_m": 10}, ["radio", "propagation", "reference_distance_m"]),
])
def test_radio_values_mininet_wifi_cannot_take_are_refused_naming_the_field(ap_radio, propagation, loc):
    from subflow.errors import FieldNotHonoured

    with pytest.raises(FieldNotHonoured) as exc:
        script_for(_with_radio(ap_radio, propagation), "sptcp")
    assert exc.value.loc == loc and "engine mininet-wifi does not honour it" in str(exc.value)


def test_a_flow_ending_at_an_access_point_is_refused_naming_the_field():
    """An access point is an Open vSwitch L2 switch (OVSKernelAP, failMode='standalone'): no address."""
    from subflow.errors import FieldNotHonoured

    doc = load_example("naval-direct-move")
    doc["flows"][0]["dst"] = "uav"
    with pytest.raises(FieldNotHonoured) as exc:
        script_for(doc, "sptcp")
    assert exc.value.loc == ["flows", 0, "dst"]


@pytest.mark.parametrize(("flow", "loc", "value"), [
    ({"kind": "voice", "rate_mbps": None}, ["flows", 1, "kind"], "'voice'"),
    ({"kind": "udp", "rate_mbps": 1.0}, ["flows", 1, "kind"], "'udp'"),
    ({"dscp": "EF"}, ["flows", 1, "dscp"], "'EF'"),
])
def test_flows_beyond_tcp_are_refused_by_the_script_naming_the_field(flow, loc, value):
    """The script runs iperf3 TCP clients without priority queues: a udp, voice or video source or a DiffServ
    class is refused, not exported as a TCP transfer."""
    from subflow.errors import FieldNotHonoured

    doc = load_example("naval-direct-move")
    doc["flows"][1].update(flow)
    with pytest.raises(FieldNotHonoured) as exc:
        script_for(doc, "sptcp")
    assert exc.value.loc == loc
    assert str(exc.value).startswith(f"flows[1].{loc[-1]}={value}: engine mininet-wifi does not honour it")

"""The linux engine's pure parts: names, addresses, policy routes, endpoints, validation.

No root needed: nothing here touches the system.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest

from subflow.runplan.resolve import resolve_plan
from subflow_engines.linux import EngineCannotRun, HostCapabilities, validate
from subflow_engines.linux.routing import address_flows, boundaries, desired_state
from subflow_engines.linux.topology import build_model, hops_up_at

from .scenarios import naval_direct_move, path_cut, two_path

pytestmark = pytest.mark.linux

PREFIX = "sf0a1b2c"


def _caps(**over) -> HostCapabilities:
    c = HostCapabilities(root=True, ip=True, tc=True, netns=True, veth=True, bridge=True, htb=True, u32=True,
                         netem=False, iptables=True, statistic_match=True, nfqueue_target=True,
                         nfqueue_binding=True, mptcp_enabled=True, mptcp_endpoints=True, mptcpize=True,
                         iperf3=True, ss=True, congestion_control=["reno", "cubic", "bbr"], rate_cap=True)
    return dataclasses.replace(c, **over)


def test_generated_names_carry_the_prefix_and_fit_ifnamsiz():
    plan = resolve_plan(naval_direct_move(), "mptcp", "linux")
    m = build_model(plan, PREFIX, use_netem=False)
    names = [i.name for link in m.links for i in (link.ifa, link.ifb)]
    names += [r.bridge.name for r in m.radios.values()]
    names += [h.sta_if.name for h in m.hops.values()] + [h.port for h in m.hops.values()]
    assert names and all(n.startswith(PREFIX) and len(n) <= 15 for n in names)
    assert all(ns.startswith(PREFIX + "-") for ns in m.namespaces())
    ids = {n["id"] for n in plan.scenario["nodes"]} | {link["id"] for link in plan.scenario["links"]}
    assert not any(i in n for i in ids for n in names + m.namespaces())  # user ids never reach a name
    assert len(set(names)) == len(names)
    # the two stations each get one wireless hop to the UAV bridge, down until associated at 63 s
    assert set(m.hops) == {("sta1", "uav"), ("sta2", "uav")}
    assert hops_up_at(m, 62.9) == set() and hops_up_at(m, 63.0) == {("sta1", "uav"), ("sta2", "uav")}
    # delays on the receiving side for the NFQUEUE line; shaping on every direction's egress
    sat = [i for i in m.impairments if i.resource == "sta1-satcom:sta1>satcom"]
    assert sat and sat[0].delay_ms == 250 and sat[0].ns == m.ns("satcom") and sat[0].queue_num >= 0
    assert {s.resource for s in m.shapers} >= {"uav-ship:uav>ship", "uav-ship:ship>uav", "air:uav"}
    assert m.mtu == 1500


def test_netem_hosts_put_delay_in_the_qdisc():
    plan = resolve_plan(naval_direct_move(), "sptcp", "linux")
    m = build_model(plan, PREFIX, use_netem=True)
    assert m.impairments == []
    assert any(s.delay_ms == 250 for s in m.shapers)


def test_multihomed_source_gets_policy_routes_and_endpoints_per_interface():
    plan = resolve_plan(naval_direct_move(), "mptcp", "linux")
    m = build_model(plan, PREFIX, use_netem=False)
    a = address_flows(plan, m)
    f1 = a.flows["f1"]
    assert f1.mode == "src"
    s_sat, d = f1.keys["f1/satcom"]
    s_uav, d2 = f1.keys["f1/uav"]
    assert d == d2 == m.nodes["ship"].addr
    assert s_sat == m.iface_addr("sta1", "satcom") and s_uav == m.hops[("sta1", "uav")].sta_if.addr
    assert f1.bind_addr == s_sat and f1.connect_addr == d
    before, after = desired_state(plan, m, a, 62.0), desired_state(plan, m, a, 63.0)
    assert set(before.endpoints["sta1"]) == {s_sat}
    assert set(after.endpoints["sta1"]) == {s_sat, s_uav}
    assert all(flag == "subflow" for _, _, flag in after.endpoints["sta1"].values())
    # the UAV subflow's forward route at sta1 lives in the table of its source address
    fwd = [r for r in after.routes if r.node == "sta1" and r.table == a.table(s_uav)]
    assert len(fwd) == 1 and fwd[0].dst == d and fwd[0].dev == m.hops[("sta1", "uav")].sta_if.name
    assert fwd[0].via == m.radios["uav"].bridge.addr
    # and the reply towards it, at the ship, goes back through the UAV
    back = [r for r in after.routes if r.node == "ship" and r.dst == s_uav]
    assert len(back) == 1 and back[0].table == a.table(d)
    assert 60.0 in boundaries(plan, m) and 63.0 in boundaries(plan, m)


def test_single_path_uses_node_addresses_and_loses_its_route_during_the_handover():
    plan = resolve_plan(naval_direct_move(), "sptcp", "linux")
    m = build_model(plan, PREFIX, use_netem=False)
    a = address_flows(plan, m)
    f1 = a.flows["f1"]
    assert f1.mode == "single"
    assert (f1.bind_addr, f1.connect_addr) == (m.nodes["sta1"].addr, m.nodes["ship"].addr)
    during = desired_state(plan, m, a, 62.0)
    assert during.subflows["f1"] == {}
    assert not [r for r in during.routes if r.dst == m.nodes["ship"].addr and r.node == "sta1"]
    after = desired_state(plan, m, a, 63.0)
    assert after.subflows["f1"]["f1/tcp"] == ["sta1", "uav", "ship"]


def test_validate_names_what_the_host_cannot_do():
    plan = resolve_plan(naval_direct_move(), "mptcp", "linux")
    assert validate(plan, _caps())  # runs (with notes on what Linux fixes)
    with pytest.raises(EngineCannotRun, match=r"links\[0\]\.delay_ms=250"):
        validate(plan, _caps(nfqueue_binding=False))
    with pytest.raises(EngineCannotRun, match="mptcpize"):
        validate(plan, _caps(mptcpize=False))
    with pytest.raises(EngineCannotRun, match="net.mptcp.enabled"):
        validate(plan, _caps(mptcp_enabled=False))
    with pytest.raises(EngineCannotRun, match="root"):
        validate(plan, _caps(root=False))
    doc = copy.deepcopy(plan.scenario)
    for link in doc["links"]:
        link["delay_ms"] = 0.0
    for n in doc["nodes"]:
        if n["kind"] == "access_point":
            n["wireless_delay_ms"] = 0.0
    doc["links"][3]["jitter_ms"] = 2.0
    doc["links"][3]["loss"] = 0.01
    jit = resolve_plan(doc, "sptcp", "linux")
    with pytest.raises(EngineCannotRun, match=r"links\[3\]\.jitter_ms=2"):
        validate(jit, _caps(nfqueue_target=False))
    with pytest.raises(EngineCannotRun, match=r"links\[3\]\.loss=0.01"):
        validate(jit, _caps(statistic_match=False))
    notes = validate(jit, _caps())
    assert any("jitter" in n for n in notes) and any("loss" in n for n in notes)
    with pytest.raises(EngineCannotRun, match="transport.congestion_control"):
        validate(jit, _caps(congestion_control=["bbr"]))
    with pytest.raises(EngineCannotRun, match=r"flows\[0\]\.rate_mbps=3 \(f1\): this host cannot cap"):
        validate(plan, _caps(rate_cap=False))  # naval-direct-move's flows are rated


def test_validate_refuses_controller_handovers_and_rate_tables():
    for name in ("sptcp-zwa", "sptcp-spurious", "msctp-best"):
        try:
            plan = resolve_plan(naval_direct_move(), name, "linux")
        except Exception:
            continue  # strategy not in this library version
        with pytest.raises(EngineCannotRun, match="strategy"):
            validate(plan, _caps())
    doc = naval_direct_move()
    uav = next(n for n in doc["nodes"] if n["id"] == "uav")
    uav["rate_table"] = [{"distance_m": 100, "bandwidth_mbps": 54}, {"distance_m": 300, "bandwidth_mbps": 6}]
    try:
        plan = resolve_plan(doc, "sptcp", "linux")
    except Exception:
        pytest.skip("this library version has no rate_table")
    with pytest.raises(EngineCannotRun, match=r"nodes\[2\]\.rate_table"):
        validate(plan, _caps())


def test_two_paths_and_cut_scenarios_resolve_as_intended():
    plan = resolve_plan(two_path(), "mptcp", "linux")
    m = build_model(plan, PREFIX, use_netem=False)
    a = address_flows(plan, m)
    assert a.flows["f"].mode == "src" and set(a.flows["f"].keys) == {"f/r1", "f/r2"}
    plan = resolve_plan(path_cut(False), "sptcp", "linux")
    m = build_model(plan, PREFIX, use_netem=False)
    a = address_flows(plan, m)
    assert desired_state(plan, m, a, 12.0).routes == set()


def test_detection_without_root_reports_unavailable(monkeypatch):
    from subflow_engines.linux import capabilities

    monkeypatch.setattr(capabilities.os, "geteuid", lambda: 1000)
    try:
        caps = capabilities.detect(refresh=True)
        assert not caps.root and not caps.available and not caps.netns
        assert any("not root" in p for p in caps.problems)
        plan = resolve_plan(two_path(), "sptcp", "linux")
        with pytest.raises(EngineCannotRun, match="lacks root"):
            validate(plan, caps)
    finally:
        monkeypatch.undo()
        capabilities.detect(refresh=True)


def test_capacity_changes_are_boundaries_and_a_change_of_an_unshaped_resource_is_found():
    """A plan's capacity change times are driver boundaries (the HTB classes change there), each direction of a
    link has a shaper to change, and a change naming a resource nothing shapes is listed (the engine refuses it
    before anything starts)."""
    from subflow.runplan.document import CapacityChange
    from subflow_engines.linux.topology import unshaped_changes

    plan = resolve_plan(two_path(15.0, with_slow_path=False), "sptcp", "linux")
    plan.capacity_changes = [CapacityChange(t_s=6.5, resource="a-r1:a>r1", capacity_mbps=2.0),
                             CapacityChange(t_s=6.5, resource="a-r1:r1>a", capacity_mbps=2.0)]
    m = build_model(plan, PREFIX, use_netem=False)
    assert 6.5 in boundaries(plan, m)
    assert {sh.resource for sh in m.shapers} >= {"a-r1:a>r1", "a-r1:r1>a"}
    assert unshaped_changes(plan, m) == []
    plan.capacity_changes.append(CapacityChange(t_s=7.0, resource="nope:a>b", capacity_mbps=1.0))
    plan.capacity_changes.append(CapacityChange(t_s=7.0, resource="air:nobody", capacity_mbps=1.0))
    assert unshaped_changes(plan, m) == ["nope:a>b"]

"""The linux engine's udp/voice figures from packet records (:mod:`subflow_engines.linux.cbrstats`) and its class
queues (:func:`subflow_engines.linux.network.class_queues`), on cases worked by hand. Pure: no root needed."""

from __future__ import annotations

import pytest

from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import QueueingSettings, TrafficClass
from subflow_engines.linux import EngineCannotRun, validate
from subflow_engines.linux.cbrstats import cbr_series
from subflow_engines.linux.network import class_queues


def test_series_of_a_hand_made_record():
    """Four packets 0.25 s apart in interval 0, four in interval 1; seq 5 lost. Delays (ms): 10, 12, 10, 14 |
    10, lost, 11, 10, all arriving in order. Hand: interval 0 mean 11.5 ms, interval 1 mean 31/3 ms; loss 0 and
    1/4; J (RFC 3550, transit differences |2|, |−2|, |4| then |−4|, |1|, |−1| ms): J1 = 2/16 = 0.125,
    J2 = 0.125 + (2 − 0.125)/16 = 0.2421875, J3 = 0.2421875 + (4 − 0.2421875)/16 = 0.4770508 (interval 0's last
    arrival), J4 = 0.4770508 + (4 − 0.4770508)/16 = 0.6972351, J6 = 0.6972351 + (1 − 0.6972351)/16 = 0.7161579,
    J7 = 0.7161579 + (1 − 0.7161579)/16 = 0.7338980 ms (interval 1's)."""
    sent = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]
    delay_ms = {0: 10, 1: 12, 2: 10, 3: 14, 4: 10, 6: 11, 7: 10}
    received = [(k, sent[k], sent[k] + d / 1e3) for k, d in delay_ms.items()]
    out = cbr_series(sent, received, packet_bytes=200, interval_s=1.0, n_bins=3)
    assert out["delay_ms"][0] == pytest.approx(11.5)
    assert out["delay_ms"][1] == pytest.approx(31 / 3, abs=1e-6)
    assert out["delay_ms"][2] is None
    assert out["loss"] == [0.0, 0.25, None]
    # what was sent: 4 packets of 200 bytes in each of intervals 0 and 1, none in 2
    assert out["sent_mbps"] == [pytest.approx(4 * 1600 / 1e6), pytest.approx(4 * 1600 / 1e6), 0.0]
    assert out["throughput_mbps"] == [pytest.approx(4 * 1600 / 1e6), pytest.approx(3 * 1600 / 1e6), 0.0]
    assert out["jitter_ms"][0] == pytest.approx(0.4770508, abs=1e-6)
    assert out["jitter_ms"][1] == pytest.approx(0.7338980, abs=1e-6)
    assert out["jitter_ms"][2] is None  # nothing sent or received
    # p95 of 10, 10, 12, 14 (linear between order statistics): 12 + 0.85 × 2 = 13.7
    assert out["delay_p95_ms"][0] == pytest.approx(13.7)


def test_a_duplicate_counts_once_and_late_packets_fall_in_their_arrival_interval():
    sent = [0.0, 0.5]
    received = [(0, 0.0, 0.9), (0, 0.0, 0.95), (1, 0.5, 1.2)]
    out = cbr_series(sent, received, packet_bytes=100, interval_s=1.0, n_bins=2)
    assert out["loss"] == [0.0, None]
    assert out["delay_ms"] == [pytest.approx(900.0), pytest.approx(700.0)]


def test_class_queues_by_hand():
    """4000 kbit/s, default classes. strict priority: voice (priority 0) 4000 − 3 × 8 = 3976 kbit/s, the others
    8 kbit/s, ceil 4000, prio = priority; drr 4:3:2:1 of 4000: 1600, 1200, 800, 400 kbit/s, quanta 1514 × w."""
    sp = {c["name"]: c for c in class_queues(QueueingSettings(discipline="strict_priority"), 4000, 100, 1514)}
    assert [(sp[n]["rate_kbit"], sp[n]["prio"]) for n in ("voice", "video", "best_effort", "background")] == [
        (3976, 0), (8, 1), (8, 2), (8, 3)]
    assert all(c["ceil_kbit"] == 4000 and c["limit_packets"] == 100 for c in sp.values())
    assert sp["best_effort"]["minor"] == 10 and sp["best_effort"]["dsfields"] == []
    assert sp["voice"]["dsfields"] == [0xB8, 0xC0]  # EF 46 << 2, CS6 48 << 2
    drr = {c["name"]: c for c in class_queues(QueueingSettings(discipline="drr"), 4000, 100, 1514)}
    assert [(drr[n]["rate_kbit"], drr[n]["quantum_bytes"]) for n in ("voice", "video", "best_effort", "background")
            ] == [(1600, 6056), (1200, 4542), (800, 3028), (400, 1514)]
    assert class_queues(QueueingSettings(), 4000, 100, 1514) == []
    own = QueueingSettings(discipline="strict_priority", classes=[
        TrafficClass(name="rt", dscp=["EF"], priority=0, queue_packets=10), TrafficClass(name="rest", dscp=["BE"], priority=1)])
    assert [(c["minor"], c["limit_packets"]) for c in class_queues(own, 4000, 100, 1514)] == [(20, 10), (10, 100)]


def test_validate_refuses_a_udp_packet_above_the_mtu():
    """1473 bytes of payload + 28 = 1501 > the 1500-byte MTU of mss_bytes 1448: refused naming udp.packet_bytes;
    1472 runs. A rated udp flow needs no IFB rate cap (its sender paces itself)."""
    from .test_linux_model import _caps

    doc = {"name": "u", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "ab", "src": "a", "dst": "b", "bandwidth_mbps": 10}],
           "flows": [{"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 1.0,
                      "udp": {"packet_bytes": 1473}}],
           "run": {"duration_s": 5, "interval_s": 1.0}}
    with pytest.raises(EngineCannotRun, match=r"^flows\[0\]\.udp\.packet_bytes \(u\): its IP packets of 1501 bytes"):
        validate(resolve_plan(doc, "sptcp", "linux"), _caps())
    doc["flows"][0]["udp"]["packet_bytes"] = 1472
    validate(resolve_plan(doc, "sptcp", "linux"), _caps(rate_cap=False))

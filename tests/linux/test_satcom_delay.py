"""The linux engine follows a plan's delay change (SATCOM slant range) on the real kernel.

One 100 Mbit/s link whose one-way delay the plan raises from 15 ms to 75 ms at t = 8 s (both
directions; as :mod:`subflow.space.satcom` changes a SATCOM link's delay). The netem qdisc is changed in
place, or the NFQUEUE delay line gets a command. References, not computed by the engine:

* a receive-window-limited TCP flow carries window / RTT, so its throughput after the change is
  about RTT_before / RTT_after = 30/150 = 1/5 of the throughput before (accepted: 1/8 to 1/3);
* the kernel's lowest RTT sample is the 30 ms base RTT (the delay line honours it within
  max(0.5 ms, 3 %): tests/linux/test_delay_accuracy.py; iperf3 samples TCP's smoothed RTT once a
  second, so queueing may add to it), and its mean lies between the two base RTTs.

Real time: 16 s.
"""

from __future__ import annotations

import pytest

from subflow.runplan.document import DelayChange
from subflow.runplan.resolve import resolve_plan
from subflow_engines import linux

pytestmark = pytest.mark.linux

CHANGE_S = 8.0


def _plan():
    doc = {"name": "delay-change", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "l", "src": "a", "dst": "b", "bandwidth_mbps": 100, "delay_ms": 15,
                      "queue_packets": 1000}],
           "flows": [{"id": "f", "src": "a", "dst": "b"}],
           "run": {"duration_s": 16.0, "interval_s": 1.0},
           "transport": {"rbuf_bytes": 65536}}
    plan = resolve_plan(doc, "sptcp", "linux")
    plan.delay_changes = [DelayChange(t_s=CHANGE_S, resource=r, delay_ms=75.0) for r in ("l:a>b", "l:b>a")]
    return plan


def test_the_kernel_rtt_follows_a_plan_delay_change(caps, no_leftovers):
    if caps.delay_mechanism is None:
        pytest.skip("linux engine: no delay mechanism (netem, or NFQUEUE + fnfqueue)")
    import os

    if os.geteuid() != 0:
        pytest.skip("linux engine: needs root (network namespaces)")
    out = linux.run(_plan())
    thr = out.flows[0].throughput_mbps
    before = sum(thr[3:8]) / 5
    after = sum(thr[10:16]) / 6
    client = out.flows[0].iperf3["client"]
    print(f"\ndelay change 15 -> 75 ms at {CHANGE_S:g} s: {[round(v, 2) for v in thr]} Mbit/s; before {before:.2f}, "
          f"after {after:.2f}, ratio {after / before:.3f}; RTT min {client['min_rtt_ms']} mean {client['mean_rtt_ms']} ms"
          f"; mechanism {out.linux['delay_mechanism']}")
    assert [(c["resource"], c["delay_ms"]) for c in out.linux["delay_changes"]] == [("l:a>b", 75.0), ("l:b>a", 75.0)]
    assert before > 2.0
    assert 1 / 8 <= after / before <= 1 / 3
    assert 29.0 <= client["min_rtt_ms"] <= 40.0
    assert 40.0 <= client["mean_rtt_ms"] <= 155.0

"""Sweep and repetition figures of voice and udp flows: mean / lowest MOS, delay, jitter and loss per
strategy, from made-up result documents (every expected value worked out from the series written here)."""

from __future__ import annotations

import pytest

from subflow.comparison.sweeps import SweepSpec, aggregate, expand, unit_summary
from subflow.results.document import (
    AggregateStats, EngineOutput, ResultDocument, comparison_document, summarize,
)
from subflow.scenario.document import load_scenario

T = [0.0, 1.0, 2.0, 3.0]


def scenario():
    return {"schema_version": 1, "name": "q",
            "nodes": [{"id": "a", "kind": "host", "position": {"x_m": 0, "y_m": 0}},
                      {"id": "b", "kind": "host", "position": {"x_m": 100, "y_m": 0}}],
            "links": [{"id": "ab", "src": "a", "dst": "b", "delay_ms": 5, "bandwidth_mbps": 1}],
            "flows": [{"id": "call", "src": "a", "dst": "b", "kind": "voice", "voice": {"codec": "g711"},
                       "stop_s": 3},
                      {"id": "bulk", "src": "a", "dst": "b"}],
            "run": {"duration_s": 4, "interval_s": 1.0, "seed": 1}}


def document(mos, delay, jitter, loss, sent=None) -> ResultDocument:
    call = {"id": "call", "src": "a", "dst": "b", "t_s": T, "throughput_mbps": [0.08] * 4, "subflows": [],
            "mos": mos, "delay_ms": delay, "jitter_ms": jitter, "loss": loss, "r_factor": [None] * 4}
    if sent is not None:
        call["sent_mbps"] = sent
    bulk = {"id": "bulk", "src": "a", "dst": "b", "t_s": T, "throughput_mbps": [0.5] * 4, "subflows": []}
    out = EngineOutput(engine="fluid", strategy="sptcp", flows=[call, bulk], events=[])
    return comparison_document(load_scenario(scenario()), {"sptcp": summarize(out, 1.0)})


def test_unit_summary_pools_the_active_intervals_and_counts_a_silent_one_as_mos_1():
    """The call is active 0-3 s (intervals 0, 1, 2; interval 3 is outside, its MOS 4.5 must not count).
    Interval 1 delivered nothing (delay and MOS null, loss 1): MOS counts as 1 there, the delay and jitter
    means skip it. mos_mean = (4.2 + 1 + 3.8)/3 = 3.0, mos_min 1; delay (40 + 60)/2 = 50, max 60;
    jitter (2 + 4)/2 = 3; loss (0 + 1 + 0.02)/3 = 0.34."""
    doc = document(mos=[4.2, None, 3.8, 4.5], delay=[40.0, None, 60.0, 10.0], jitter=[2.0, None, 4.0, 0.0],
                   loss=[0.0, 1.0, 0.02, 0.0])
    got = unit_summary(doc)["sptcp"]
    assert got["mos_mean"] == pytest.approx(3.0) and got["mos_min"] == 1.0
    assert got["delay_ms"] == pytest.approx(50.0) and got["delay_max_ms"] == 60.0
    assert got["jitter_ms"] == pytest.approx(3.0) and got["loss"] == pytest.approx(0.34)
    assert got["mean_mbps"] == pytest.approx((0.08 * 3 / 3 + 0.5) / 2)


def test_aggregate_means_the_repetitions_and_keeps_the_extremes():
    """Two repetitions: MOS means 4.0 and 3.0 → 3.5, minimums 3.8 and 2.0 → 2.0; delays 30 / 90 → 60, max 100."""
    sweep = SweepSpec(parameter="links.ab.bandwidth_mbps", values=[1.0])
    units = expand(scenario(), sweep, 2)
    one = document([4.2, 3.8, 4.0, 4.0], [30.0, 20.0, 40.0, 0.0], [1.0] * 4, [0.0] * 4)
    two = document([4.0, 2.0, 3.0, 4.0], [80.0, 100.0, 90.0, 0.0], [3.0] * 4, [0.03] * 4)
    out = aggregate(units, [unit_summary(one), unit_summary(two)], sweep)
    s = out["sweep"]["points"][0]["strategies"]["sptcp"]
    assert s["mos_mean"] == pytest.approx(3.5) and s["mos_min"] == 2.0
    assert s["delay_ms"] == pytest.approx(60.0) and s["delay_max_ms"] == 100.0
    assert s["jitter_ms"] == pytest.approx(2.0) and s["loss"] == pytest.approx(0.015)


def test_tcp_only_and_old_summaries_leave_the_quality_figures_null():
    """Null, as the stored document's AggregateStats has them: a local aggregate and a service's read the same
    (the remote CLI's sweep is compared with the local one key for key)."""
    units = expand(scenario(), None, 1)
    old = {"sptcp": {"mean_mbps": 1.0, "jain_index": 1.0, "zero_s": 0.0}}
    s = aggregate(units, [old], None)["repetitions"]["sptcp"]
    assert s["mean_mbps"] == 1.0
    assert all(s[k] is None for k in ("mos_mean", "mos_min", "delay_ms", "delay_max_ms", "jitter_ms", "loss"))
    assert set(s) == set(AggregateStats.model_fields)


def test_unit_summary_weighs_each_intervals_loss_by_what_it_sent():
    """A call with silence suppression sends 0.08, 0.02 and 0.04 Mbit/s in its active intervals 0-2 and loses
    0, 1 and 0.02 of it: 0.02 + 0.0008 = 0.0208 Mbit lost of 0.14 sent, 0.148571 (the plain mean of the
    fractions, 0.34, would count the nearly silent interval like a full one); 0.14 Mbit sent over the 1 s
    intervals."""
    doc = document(mos=[4.2, None, 3.8, 4.5], delay=[40.0, None, 60.0, 10.0], jitter=[2.0, None, 4.0, 0.0],
                   loss=[0.0, 1.0, 0.02, 0.0], sent=[0.08, 0.02, 0.04, 0.5])
    got = unit_summary(doc)["sptcp"]
    assert got["loss"] == pytest.approx(0.0208 / 0.14, abs=1e-12)
    assert got["loss_sent_mbit"] == pytest.approx(0.14, abs=1e-12)


def test_aggregate_weighs_each_repetitions_loss_by_what_it_sent():
    """Repetition one sends 0.08 Mbit/s over the call's 3 active seconds (0.24 Mbit) and loses nothing;
    repetition two sends 0.02 Mbit/s (0.06 Mbit) and loses 3 %: 0.0018 Mbit of 0.30, 0.006 (not the mean 0.015)."""
    sweep = SweepSpec(parameter="links.ab.bandwidth_mbps", values=[1.0])
    units = expand(scenario(), sweep, 2)
    one = document([4.2] * 4, [30.0] * 4, [1.0] * 4, [0.0] * 4, sent=[0.08] * 4)
    two = document([4.0] * 4, [80.0] * 4, [3.0] * 4, [0.03] * 4, sent=[0.02] * 4)
    s = aggregate(units, [unit_summary(one), unit_summary(two)], sweep)["sweep"]["points"][0]["strategies"]["sptcp"]
    assert s["loss"] == pytest.approx(0.006, abs=1e-12)
    assert set(s) == set(AggregateStats.model_fields)

"""Summary statistics and Jain's index."""

from __future__ import annotations

import math

import pytest

from subflow.results.document import EngineOutput, FlowResult, jain_index, summarize


def test_jain_index_reference_values():
    assert jain_index([2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)  # one of n gets everything: 1/n
    xs = [1.0, 2.0, 3.0]
    assert jain_index(xs) == pytest.approx(36 / (3 * 14))
    assert jain_index([]) == 1.0 and jain_index([0.0, 0.0]) == 1.0  # stated convention
    with pytest.raises(ValueError):
        jain_index([1.0, -1.0])


def test_summary_counts_zero_runs_inside_the_active_window():
    thr = [0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 5.0, 5.0]
    out = EngineOutput(engine="x", strategy="y", events=[], flows=[
        FlowResult(id="f", src="a", dst="b", t_s=[float(i) for i in range(10)], throughput_mbps=thr, subflows=[]),
    ])
    res = summarize(out, 1.0, {"f": (1.0, 8.0)})  # intervals 1..7 only
    fs = res.summary.flows[0]
    window = thr[1:8]
    assert fs.mean_mbps == pytest.approx(sum(window) / 7)
    assert fs.std_mbps == pytest.approx(math.sqrt(sum((v - sum(window) / 7) ** 2 for v in window) / 7))
    assert fs.zero_s == 4.0 and fs.longest_zero_s == 3.0
    assert fs.min_mbps == 0.0 and fs.max_mbps == 2.0

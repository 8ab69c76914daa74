"""The fluid engine against kernel TCP where flows share several bottlenecks (subflow_testbeds.multibottleneck).

The reference is the kernel: the linux engine's runs stored in docs/validation/multibottleneck_kernel.json
(three per testbed, by ``scripts/validation.py --kernel-multibottleneck``), and one live run of the parking
lot here (about 50 s of wall clock). Targets: a flow's mean goodput after the warm-up within ±20 % of the
kernel's median, a bottleneck's aggregate (the sum over the flows crossing it) within ±10 %. The fluid
side is recomputed by every run of these tests.
"""

from __future__ import annotations

import statistics

import pytest

from subflow_testbeds import multibottleneck as mb

pytestmark = pytest.mark.linux


def _stored_comparison(key: str) -> mb.Comparison:
    tb = mb.TESTBEDS[key]
    store = mb.load_kernel()
    if key not in store:
        pytest.skip(f"no stored kernel runs of {key}: scripts/validation.py --kernel-multibottleneck {key} (root)")
    assert store[key]["scenario_digest"] == mb.scenario_digest(tb.scenario()), \
        f"the {key} scenario changed since its kernel runs: rerun them (--kernel-multibottleneck --force {key})"
    comp = mb.compare_stored(tb, store)
    print("\n" + comp.report())
    return comp


@pytest.mark.parametrize("key", sorted(mb.TESTBEDS))
def test_fluid_bottleneck_aggregates_match_the_stored_kernel_runs(key):
    comp = _stored_comparison(key)
    assert all(row.within for row in comp.bottlenecks), comp.report()


@pytest.mark.parametrize("key", sorted(mb.TESTBEDS))
def test_fluid_flow_shares_match_the_stored_kernel_runs(key):
    comp = _stored_comparison(key)
    assert all(row.within for row in comp.flows), comp.report()


def test_parking_lot_live_kernel_run(need_linux, no_leftovers):
    """Live kernel runs of the parking lot, one and up to ``KERNEL_RUNS`` while the fluid engine misses: each
    run's bottleneck aggregates within ±10 % of the stored runs' (the stored reference still holds on this
    host), and the fluid engine within the targets of the median over the stored and the live runs.

    Pooled, because the long flow's share (about 15 % of each bottleneck) is the kernel's noisiest figure:
    nine runs in three batches gave 1.15-2.14 Mbit/s (docs/validation), wider than the ±20 % target, so
    one live run is no reference for it; the short flows and the aggregates vary by a few per cent."""
    if not need_linux.delay_mechanism:
        pytest.skip("linux engine: no delay mechanism on this host")
    tb = mb.TESTBEDS["parking-lot"]
    entry = mb.load_kernel().get("parking-lot")
    if not entry or entry["scenario_digest"] != mb.scenario_digest(tb.scenario()):
        pytest.skip("no current stored kernel runs of the parking lot (--kernel-multibottleneck parking-lot)")
    stored = mb.kernel_runs(entry)
    stored_sums = [statistics.median(mb.bottleneck_sums(r, tb.bottlenecks)[b.link] for r in stored)
                   for b in tb.bottlenecks]
    fluid = mb.fluid_means(tb)  # before the kernel run: the delay line wants the CPU during it
    live: list[dict[str, float]] = []
    for _ in range(mb.KERNEL_RUNS):
        live.append(mb.kernel_run(tb)["flows_mbps"])
        sums = mb.bottleneck_sums(live[-1], tb.bottlenecks)
        for b, s in zip(tb.bottlenecks, stored_sums):
            assert sums[b.link] == pytest.approx(s, rel=mb.BOTTLENECK_TOLERANCE), \
                f"{b.link}: live {sums[b.link]:.2f} Mbit/s, stored {s:.2f}"
        comp = mb.compare(stored + live, fluid, tb.bottlenecks, testbed="parking-lot (stored + live runs)")
        if not comp.misses:
            break
    print("\n" + comp.report())
    assert not comp.misses, comp.report()

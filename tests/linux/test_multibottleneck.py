"""The fluid engine against kernel TCP where flows share several bottlenecks (subflow.testbeds.multibottleneck).

The reference is the kernel: the linux engine's runs stored in docs/validation/multibottleneck_kernel.json
(three per testbed, by ``scripts/validation.py --kernel-multibottleneck``), and one live run of the parking
lot here (about 50 s of wall clock). Targets: a flow's mean goodput after the warm-up within ±20 % of the
kernel's median, a bottleneck's aggregate (the sum over the flows crossing it) within ±10 %. The fluid
side is recomputed by every run of these tests.
"""

from __future__ import annotations

import statistics

import pytest

from subflow.testbeds import multibottleneck as mb

pytestmark = pytest.mark.linux


#: The mesh misses on three flows with the fluid engine as of this test's writing, before and after its
#: FIFO tandem-queue rewrite (f12 1.35-1.37, f9 1.30, f2 0.71-0.72; every bottleneck's aggregate within
#: 1 %): the engine queues no ACKs, and f12's ACKs cross B3's queue (docs/validation, "Multiple
#: bottlenecks"); f9's kernel share is below f10's, unexplained. Strict: once the engine meets the kernel
#: here, the marker must go.
MESH_XFAIL = pytest.mark.xfail(strict=True, reason="fluid engine: per-flow shares on the mesh (f12's ACKs queue "
                               "in the kernel, not in the engine; f9); every bottleneck aggregate agrees")


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


@pytest.mark.parametrize("key", [pytest.param(k, marks=MESH_XFAIL) if k == "mesh" else k for k in sorted(mb.TESTBEDS)])
def test_fluid_flow_shares_match_the_stored_kernel_runs(key):
    comp = _stored_comparison(key)
    assert all(row.within for row in comp.flows), comp.report()


def test_parking_lot_live_kernel_run(need_linux, no_leftovers):
    """One live kernel run of the parking lot (up to ``KERNEL_RUNS`` while the fluid engine misses the
    live median): the fluid engine within the targets of it, and its bottleneck aggregates within ±10 % of
    the stored runs' (the stored reference still holds on this host)."""
    if not need_linux.delay_mechanism:
        pytest.skip("linux engine: no delay mechanism on this host")
    tb = mb.TESTBEDS["parking-lot"]
    fluid = mb.fluid_means(tb)  # before the kernel run: the delay line wants the CPU during it
    live: list[dict[str, float]] = []
    for _ in range(mb.KERNEL_RUNS):
        live.append(mb.kernel_run(tb)["flows_mbps"])
        comp = mb.compare(live, fluid, tb.bottlenecks, testbed="parking-lot (live)")
        if not comp.misses:
            break
    print("\n" + comp.report())
    assert not comp.misses, comp.report()
    store = mb.load_kernel().get("parking-lot")
    if store:
        stored = [statistics.median(s[b.link] for s in (mb.bottleneck_sums(r, tb.bottlenecks)
                                                          for r in mb.kernel_runs(store)))
                  for b in tb.bottlenecks]
        now = [row.kernel for row in comp.bottlenecks]
        for b, s, n in zip(tb.bottlenecks, stored, now):
            assert n == pytest.approx(s, rel=mb.BOTTLENECK_TOLERANCE), f"{b.link}: live {n:.2f}, stored {s:.2f}"

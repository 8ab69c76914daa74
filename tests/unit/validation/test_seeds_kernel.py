"""The paper's seed scenarios on the real kernel (docs/validation/seeds_kernel.json, written by
``scripts/validation.py --kernel-seeds``) against the fluid engine (subflow_testbeds.seeds). The kernel does not
run here: these tests read its stored runs."""

from __future__ import annotations

import statistics

import pytest

from subflow_testbeds import seeds


@pytest.fixture(scope="module")
def store() -> dict:
    return seeds.load_kernel()


def test_every_seed_and_strategy_has_current_kernel_runs(store):
    for name in seeds.SEEDS:
        digest = seeds.scenario_digest(seeds.scenario(name))
        for strategy in seeds.STRATEGIES:
            entry = store[f"{name}/{strategy}"]
            assert entry["scenario"] == digest, f"{name}/{strategy}: stored runs are of another scenario"
            assert len(entry["runs"]) == seeds.KERNEL_RUNS
            for run in entry["runs"]:
                assert set(run["flows"]) == {"f1", "f2"}
                assert run["linux"]["delay_mechanism"] in ("netem", "nfqueue-delay-line")


def test_mptcp_never_stops_on_either_engine(store):
    for name in seeds.SEEDS:
        fluid = seeds.fluid_figures(name, "mptcp")
        for fid, f in fluid.items():
            assert f["zero_s"] == 0, (name, fid)
            assert all(run["flows"][fid]["zero_s"] == 0 for run in store[f"{name}/mptcp"]["runs"]), (name, fid)


@pytest.mark.parametrize("name", seeds.SEEDS)
def test_single_path_handover_outage_matches_the_kernel(store, name):
    """Each flow's longest run at zero (its handover outage) within ±1 s of the kernel's median."""
    runs = store[f"{name}/sptcp"]["runs"]
    fluid = seeds.fluid_figures(name, "sptcp")
    for fid, f in fluid.items():
        kernel = statistics.median(run["flows"][fid]["longest_zero_s"] for run in runs)
        assert abs(f["longest_zero_s"] - kernel) <= seeds.ZERO_TOLERANCE_S, (name, fid, f["longest_zero_s"], kernel)


def _mptcp_rows(store, name: str, path: str) -> list[dict]:
    rows = seeds.compare(store[f"{name}/mptcp"]["runs"], seeds.fluid_figures(name, "mptcp"))
    return [r for r in rows if r["what"] == "uav_mbps" and r["subflow"].endswith(f"/{path}")]


@pytest.mark.parametrize("name", seeds.SEEDS)
def test_mptcp_satcom_subflows_over_the_uav_phase_match_the_kernel(store, name):
    rows = _mptcp_rows(store, name, "satcom")
    assert len(rows) == 2 and all(r["ok"] for r in rows), rows


@pytest.mark.parametrize("name", [
    "naval-direct-move",
    pytest.param("naval-random-walk", marks=pytest.mark.xfail(
        strict=True, reason="the two UAV subflows' sum matches the kernel's (1.39 against 1.37 Mbit/s) but the "
        "engine splits the UAV backhaul 0.49/0.90 where the kernel splits it 0.66/0.71 (docs/validation, \"Seed "
        "scenarios against the kernel\")")),
])
def test_mptcp_uav_subflows_over_the_uav_phase_match_the_kernel(store, name):
    """Linux's scheduler (the smallest linger time, ``common.linger_fill``) keeps the UAV subflows in use after
    the handover; the LowRTT order the engine had left them idle (0.07 against 0.49 Mbit/s)."""
    rows = _mptcp_rows(store, name, "uav")
    assert len(rows) == 2 and all(r["ok"] for r in rows), rows


def test_mptcp_uav_subflows_share_the_uav_backhaul_as_the_kernel_does(store):
    for name in seeds.SEEDS:
        rows = _mptcp_rows(store, name, "uav")
        kernel, fluid = sum(r["kernel"] for r in rows), sum(r["fluid"] for r in rows)
        assert fluid == pytest.approx(kernel, rel=0.2), (name, kernel, fluid)


def test_the_uav_phase_figures_are_computed_over_the_association():
    doc = seeds.scenario("naval-direct-move")
    windows = seeds.uav_windows(doc)
    # both users associate with the UAV 3 s after they come into its range at 60 s and keep it to the end
    assert windows == {"f1": [(pytest.approx(63.0), pytest.approx(100.0))],
                       "f2": [(pytest.approx(63.0), pytest.approx(100.0))]}

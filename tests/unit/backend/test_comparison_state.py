"""Comparison states and guarded transitions, crud and the worker's use of them, in process on SQLite."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from subflow.results.document import ResultDocument
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from subflow.comparison.sweeps import SweepSpec
from subflow.errors import ComparisonCancelled, ComparisonGone, ScenarioInvalid, UnknownEngine, UnknownStrategy
from subflow.service.agent_api import Capabilities

from tests.unit.backend_sqlite import fake_agent, sessions  # noqa: F401  (fixtures)

from subflow.errors import FlowUnreachable, StrategyNotSupported  # noqa: E402
from subflow_backend import comparison_state as cs  # noqa: E402
from subflow_backend import accounts, crud, models  # noqa: E402
from subflow_backend.schemas import ComparisonCreate  # noqa: E402

ALL = ["queued", "running", "succeeded", "failed", "cancelled"]

#: transition -> {status it applies to: status after}; any other status is refused (written
#: from the lifecycle in the module docstring, not from the module's table)
EXPECTED = {
    "claim": {"queued": "running", "running": "running"},
    "requeue": {"running": "queued"},
    "restart": {"queued": "queued", "running": "queued"},
    "heartbeat": {"running": "running"},
    "unit_dispatch": {"running": "running"},
    "progress": {"running": "running"},
    "units_total": {"running": "running"},
    "unit_done": {"running": "running"},
    "succeed": {"running": "succeeded"},
    "fail": {"queued": "failed", "running": "failed"},
    "cancel": {"queued": "cancelled", "running": "cancelled"},
}

DOCUMENT = {"version": 1, "strategies": {}}

CALLS = {
    "claim": lambda s, cid: cs.claim(s, cid),
    "requeue": lambda s, cid: cs.requeue(s, cid),
    "restart": lambda s, cid: cs.restart(s, cid, 0, models.utcnow() + timedelta(seconds=1)),
    "heartbeat": lambda s, cid: cs.touch_units(s, cid, 0),
    "unit_dispatch": lambda s, cid: cs.next_unit(s, cid, 0) is not None,
    "progress": lambda s, cid: cs.report_progress(s, cid, 0.5),
    "units_total": lambda s, cid: cs.set_units_total(s, cid, 4),
    "unit_done": lambda s, cid: cs.unit_done(s, cid),
    "succeed": lambda s, cid: cs.succeed(s, cid, DOCUMENT),
    "fail": lambda s, cid: cs.fail(s, cid, "boom"),
    "cancel": lambda s, cid: cs.cancel(s, cid),
}


def _scenario(session, naval_direct) -> models.Scenario:
    return crud.create_scenario(session, naval_direct, project_id=accounts.default_project(session).id)


def _comparison(session, scenario: models.Scenario, status: str = "queued", **fields) -> str:
    row = models.Comparison(
        scenario_id=scenario.id, scenario_version=1, scenario_snapshot=scenario.document,
        strategies=["sptcp"], engine="fluid", seed=None, status=status, progress=0.25,
        units_total=2, units_done=0, error="old" if status == "failed" else None,
        result={"kept": True} if status == "succeeded" else None, **fields,
    )
    session.add(row)
    session.commit()
    return row.id


def _row(session, cid: str) -> models.Comparison:
    session.expire_all()
    return session.get(models.Comparison, cid)


def test_the_module_states_are_the_database_constraint(sessions, naval_direct):
    assert list(cs.STATES) == ALL
    assert cs.FINISHED == {"succeeded", "failed", "cancelled"} and cs.UNFINISHED == {"queued", "running"}
    check = next(c for c in models.Comparison.__table__.constraints if "status IN" in str(getattr(c, "sqltext", "")))
    assert sorted(re.findall(r"'(\w+)'", str(check.sqltext))) == sorted(ALL)
    with sessions() as s:
        cid = _comparison(s, _scenario(s, naval_direct))
        with pytest.raises(IntegrityError):
            s.execute(text("UPDATE comparison SET status = 'paused' WHERE id = :id"), {"id": cid})
            s.commit()


def test_the_transition_table_is_the_lifecycle():
    for name, (sources, target) in cs.TRANSITIONS.items():
        assert sorted(sources) == sorted(EXPECTED[name]), name
        assert {target or s for s in sources} == set(EXPECTED[name].values()), name
    assert set(cs.TRANSITIONS) == set(EXPECTED)


@pytest.mark.parametrize("status", ALL)
@pytest.mark.parametrize("transition", sorted(EXPECTED))
def test_every_transition_from_every_state(sessions, naval_direct, transition, status):
    with sessions() as s:
        cid = _comparison(s, _scenario(s, naval_direct), status)
        before = _row(s, cid)
        snapshot = (before.status, before.progress, before.error, before.result, before.units_done,
                    before.units_total, before.finished_at)
        changed = CALLS[transition](s, cid)
        after = _row(s, cid)
        if status in EXPECTED[transition]:
            assert changed is True
            assert after.status == EXPECTED[transition][status]
        else:
            assert changed is False
            assert (after.status, after.progress, after.error, after.result, after.units_done,
                    after.units_total, after.finished_at) == snapshot
        assert cs.allowed(transition, status) is (status in EXPECTED[transition])


@pytest.mark.parametrize("transition", sorted(EXPECTED))
def test_a_missing_comparison_is_never_written(sessions, transition):
    with sessions() as s:
        assert CALLS[transition](s, "no-such-id") is False
        assert cs.status_of(s, "no-such-id") is None


def test_what_each_transition_writes(sessions, naval_direct):
    with sessions() as s:
        cid = _comparison(s, _scenario(s, naval_direct))
        assert cs.claim(s, cid)
        row = _row(s, cid)
        assert (row.status, row.progress, row.units_done, row.error) == ("running", 0.0, 0, None)
        started = row.started_at
        assert started is not None
        assert cs.claim(s, cid) and _row(s, cid).started_at == started  # a redelivered task keeps it
        assert cs.report_progress(s, cid, 1.7) and _row(s, cid).progress == 1.0
        assert cs.report_progress(s, cid, -3) and _row(s, cid).progress == 0.0
        assert cs.unit_done(s, cid)
        assert (_row(s, cid).units_done, _row(s, cid).progress) == (1, 0.5)
        assert cs.unit_done(s, cid) and cs.unit_done(s, cid)  # a unit redelivered past the total
        assert (_row(s, cid).units_done, _row(s, cid).progress) == (3, 1.0)
        assert cs.requeue(s, cid)
        assert (_row(s, cid).status, _row(s, cid).progress) == ("queued", 0.0)
        assert cs.claim(s, cid) and cs.succeed(s, cid, DOCUMENT)
        row = _row(s, cid)
        assert (row.status, row.progress, row.result, row.error) == ("succeeded", 1.0, DOCUMENT, None)
        assert row.finished_at >= started


def test_a_cancel_is_never_overwritten_and_never_overwrites_a_result(sessions, naval_direct):
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        cid = _comparison(s, scenario, "running")
        assert cs.cancel(s, cid)
        for name in ("claim", "requeue", "progress", "unit_done", "succeed", "fail", "cancel"):
            assert CALLS[name](s, cid) is False, name
        row = _row(s, cid)
        assert (row.status, row.error, row.result) == ("cancelled", "cancelled by the user", None)

        done = _comparison(s, scenario, "running")
        assert cs.succeed(s, done, DOCUMENT)
        assert cs.cancel(s, done) is False
        assert (_row(s, done).status, _row(s, done).result) == ("succeeded", DOCUMENT)


# --- crud, in process -------------------------------------------------------------------------

def _body(**kw) -> ComparisonCreate:
    return ComparisonCreate(**kw)


def test_crud_creates_a_queued_comparison_without_asking_the_agent(sessions, naval_direct, fake_agent):
    fake_agent_calls = fake_agent
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        row = crud.create_comparison(s, scenario, _body(strategies=["sptcp", "mptcp"], seed=7, repetitions=3,
                                                         sweep={"parameter": "nodes.uav.range_m",
                                                                "values": [100, 200]}))
        assert (row.status, row.progress, row.units_done, row.units_total) == ("queued", 0.0, 0, 6)
        assert row.scenario_snapshot["run"]["seed"] == 7 and scenario.document["run"].get("seed", 1) != 7
        assert row.sweep == {"parameter": "nodes.uav.range_m", "values": [100, 200]}
        assert fake_agent_calls == []  # fluid is configured: no call to the agent

        assert crud.cancel_comparison(s, row).status == "cancelled"
        assert crud.mark_comparison_failed(s, row, "late").status == "cancelled"  # final
        other = crud.create_comparison(s, scenario, _body(strategies=["sptcp"]))
        assert crud.mark_comparison_failed(s, other, "broker down").error == "broker down"
        rows, count = crud.list_comparisons(s, scenario.id)
        assert count == 2 and {r.id for r in rows} == {row.id, other.id}


def test_crud_refuses_bad_requests_before_storing(sessions, naval_direct, fake_agent):
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        with pytest.raises(UnknownStrategy):
            crud.create_comparison(s, scenario, _body(strategies=["sptcp", "quic"]))
        with pytest.raises(UnknownEngine):
            crud.create_comparison(s, scenario, _body(engine="ns3"))
        with pytest.raises(UnknownEngine):  # reported, but not available on the agent's host
            crud.create_comparison(s, scenario, _body(engine="mininet-wifi"))
        with pytest.raises(StrategyNotSupported) as exc:
            crud.create_comparison(s, scenario, _body(strategies=["sptcp", "sptcp-delay"], engine="linux"))
        assert exc.value.index == 1 and "sptcp-delay" in str(exc.value)
        assert fake_agent and set(fake_agent) == {"capabilities"}  # engines not configured: the snapshot
        assert crud.create_comparison(s, scenario, _body(engine="linux")).engine == "linux"
        with pytest.raises(ScenarioInvalid) as bad:
            crud.create_comparison(s, scenario, _body(sweep=SweepSpec(parameter="nodes.ghost.range_m", values=[1])))
        assert bad.value.errors[0]["loc"] == ["sweep", "parameter"]
        assert crud.list_comparisons(s, scenario.id)[1] == 1


def test_crud_refuses_a_field_the_engine_does_not_honour_naming_it(sessions, naval_direct, fake_agent, monkeypatch):
    """The engine's field declaration (``fields`` of its capabilities entry) refuses a field before
    anything is stored; the error's loc is the field's path in the scenario."""
    from subflow.service.agent_api import FieldDeclaration
    from subflow.errors import FieldNotHonoured
    from subflow.runplan.capabilities import describe
    from subflow_backend import agent
    from subflow_engines import linux

    caps = agent.snapshot().model_copy(deep=True)
    next(e for e in caps.engines if e.name == "linux").fields = FieldDeclaration(**describe(linux.FIELDS))
    monkeypatch.setattr(agent, "snapshot", lambda: caps)
    monkeypatch.setattr(agent, "capabilities", lambda refresh=False: caps)
    naval_direct["nodes"][2]["rate_table"] = [{"distance_m": 100, "bandwidth_mbps": 10}]
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        with pytest.raises(FieldNotHonoured) as exc:
            crud.create_comparison(s, scenario, _body(engine="linux"))
        assert exc.value.loc == ["nodes", 2, "rate_table"]
        assert str(exc.value).startswith("nodes[2].rate_table=")
        assert "not supported by the linux engine" in str(exc.value)
        assert crud.create_comparison(s, scenario, _body(engine="fluid")).engine == "fluid"  # fluid honours it
        assert crud.list_comparisons(s, scenario.id)[1] == 1


def test_crud_refuses_a_flow_that_nothing_ever_connects(sessions, naval_direct, fake_agent):
    naval_direct["nodes"].append({"id": "island", "kind": "host", "position": {"x_m": 0, "y_m": 5000}})
    naval_direct["flows"].append({"id": "f3", "src": "sta1", "dst": "island", "rate_mbps": 1})
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        with pytest.raises(FlowUnreachable) as exc:
            crud.create_comparison(s, scenario, _body())
        assert exc.value.index == 2 and exc.value.flow_id == "f3"
        assert crud.list_comparisons(s, scenario.id)[1] == 0


# --- the worker's use of the transitions --------------------------------------------------------

@pytest.fixture
def tasks(sessions, monkeypatch):
    from subflow_worker import tasks

    monkeypatch.setattr(tasks, "SessionLocal", sessions)
    return tasks


def test_worker_claims_reports_and_stops_at_a_cancel(sessions, naval_direct, tasks):
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        cid = _comparison(s, scenario)
    snapshot, strategies, engine, repetitions, sweep = tasks._claim(cid)
    assert (strategies, engine, repetitions, sweep) == (["sptcp"], "fluid", 1, None)
    assert snapshot == scenario.document
    now = [0.0]
    progress = tasks._Progress(cid, strategies, clock=lambda: now[0])
    progress.set(0.5)
    with sessions() as s:
        assert _row(s, cid).progress == 0.5
        assert crud.cancel_comparison(s, _row(s, cid)).status == "cancelled"
    now[0] += tasks.PROGRESS_MIN_INTERVAL_S
    with pytest.raises(ComparisonCancelled):
        progress.set(0.9)
    document = ResultDocument.model_validate({**DOCUMENT, "scenario": scenario.document})
    assert tasks._finish(cid, document) is False
    tasks._fail(cid, "agent down")
    assert tasks._claim(cid) is None
    with sessions() as s:
        row = _row(s, cid)
        assert (row.status, row.error, row.result) == ("cancelled", "cancelled by the user", None)


def test_worker_writes_progress_at_most_once_per_interval_and_always_the_end(sessions, naval_direct, tasks):
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        cid = _comparison(s, scenario, "running")
    now = [0.0]
    progress = tasks._Progress(cid, ["sptcp"], clock=lambda: now[0])

    def stored() -> float:
        with sessions() as s:
            return _row(s, cid).progress

    progress.set(0.1)
    assert stored() == 0.1
    now[0] += tasks.PROGRESS_MIN_INTERVAL_S / 2
    progress.set(0.3)  # 20 % further, but too soon after the last write
    assert stored() == 0.1
    now[0] += tasks.PROGRESS_MIN_INTERVAL_S / 2
    progress.set(0.4)
    assert stored() == 0.4
    progress.set(1.0)  # the end, however soon
    assert stored() == 1.0


def test_worker_notices_a_deleted_comparison(sessions, naval_direct, tasks):
    with sessions() as s:
        scenario = _scenario(s, naval_direct)
        cid = _comparison(s, scenario, "running")
        crud.delete_scenario(s, scenario)
    progress = tasks._Progress(cid, ["sptcp"])
    with pytest.raises(ComparisonGone):
        progress.set(0.5)
    assert tasks._claim(cid) is None and tasks._status(cid) is None


class FakeAgentClient:
    """Stands in for the emulator agent's HTTP client; a plan reaching it is a test failure."""

    def __enter__(self) -> "FakeAgentClient":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def run(self, plan, on_progress=None):
        raise AssertionError(f"no plan should reach the agent: {plan.strategy}")

    def capabilities(self):
        return Capabilities.model_validate({"engines": [{"name": "fluid", "available": True,
                                                         "supports": {"real_time": False}}]})


def test_a_flow_connected_only_by_a_link_that_is_always_down_fails_in_the_worker(
    sessions, naval_direct, fake_agent, tasks, monkeypatch
):
    """The API's check is the union of links and associations over the run; a flow that it lets
    through but that no plan can route becomes ``failed`` naming the flow (no agent call)."""
    naval_direct["nodes"].append({"id": "island", "kind": "host", "position": {"x_m": 0, "y_m": 5000}})
    naval_direct["links"].append({"id": "ship-island", "src": "ship", "dst": "island", "bandwidth_mbps": 10,
                                  "delay_ms": 1})
    naval_direct["link_events"] = [{"t_s": 0, "link": "ship-island", "state": "down"}]
    naval_direct["flows"].append({"id": "f3", "src": "sta1", "dst": "island", "rate_mbps": 1})
    monkeypatch.setattr(tasks, "_agent_client", FakeAgentClient)
    with sessions() as s:
        row = crud.create_comparison(s, _scenario(s, naval_direct), _body(strategies=["sptcp", "mptcp"]))
        assert row.status == "queued"
    assert tasks.run_comparison(row.id) == "failed"
    with sessions() as s:
        done = _row(s, row.id)
        assert done.status == "failed" and done.result is None and done.finished_at is not None
        assert done.error == "flow 'f3': no path from 'sta1' to 'island' at any time of the run"

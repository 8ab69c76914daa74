"""The reaper and the windowed units of a sweep, in process on SQLite (no broker: ``send`` records
the messages the reaper would put on it)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from sqlalchemy import update

from subflow.comparison.sweeps import SweepSpec, expand, unit_at, unit_count

from tests.unit.backend_sqlite import sessions  # noqa: F401  (fixture)

from subflow_backend import accounts, crud, models  # noqa: E402
from subflow_backend import comparison_state as cs  # noqa: E402
from subflow_backend.reaper import reap  # noqa: E402
from subflow_backend.settings import Settings  # noqa: E402

SETTINGS = Settings(STALE_AFTER_S=10, STALE_QUEUED_S=100, REAPER_MAX_RESTARTS=2)


def _comparison(session, doc, status="queued", **fields) -> str:
    doc = {**doc, "name": f"{doc['name']}-{uuid.uuid4().hex[:6]}"}
    scenario = crud.create_scenario(session, doc, project_id=accounts.default_project(session).id)
    row = cs.new_comparison(scenario_id=scenario.id, scenario_version=1, scenario_snapshot=doc,
                            strategies=["sptcp"], engine="fluid", seed=None, **fields)
    row.status = status
    session.add(row)
    session.commit()
    return row.id


def _age(session, cid: str, seconds: float) -> None:
    """Make the comparison's last heartbeat ``seconds`` old."""
    session.execute(update(models.Comparison).where(models.Comparison.id == cid)
                    .values(heartbeat_at=models.utcnow() - timedelta(seconds=seconds)))
    session.commit()


def _row(session, cid):
    session.expire_all()
    return session.get(models.Comparison, cid)


class Sent(list):
    def __call__(self, name, args):
        self.append((name, args))


def test_a_running_comparison_with_a_fresh_heartbeat_is_left_alone(sessions, naval_direct):
    with sessions() as s:
        cid = _comparison(s, naval_direct, "running")
        _age(s, cid, 5)
        sent = Sent()
        assert reap(s, sent, 0, SETTINGS) == [] and sent == []
        assert _row(s, cid).status == "running"


def test_a_stale_running_comparison_is_restarted_with_a_new_attempt_then_failed(sessions, naval_direct):
    with sessions() as s:
        cid = _comparison(s, naval_direct, "running")
        for attempt in range(SETTINGS.REAPER_MAX_RESTARTS):
            _age(s, cid, 11)
            sent = Sent()
            # a worker queue full of other messages does not hold back a running single run
            assert reap(s, sent, 7, SETTINGS) == [(cid, "restarted")]
            assert sent == [("subflow.run_comparison", [cid, attempt + 1])]
            row = _row(s, cid)
            assert (row.status, row.attempt, row.restarts) == ("queued", attempt + 1, attempt + 1)
            # the message of the old attempt is dropped; the new one claims
            assert not cs.claim(s, cid, attempt)
            assert cs.claim(s, cid, attempt + 1)
        _age(s, cid, 11)
        assert reap(s, Sent(), 0, SETTINGS) == [(cid, "failed")]
        row = _row(s, cid)
        assert row.status == "failed" and "stopped 3 times" in row.error and "REAPER_MAX_RESTARTS = 2" in row.error


def test_a_duplicate_message_does_not_take_over_a_live_run(sessions, naval_direct):
    with sessions() as s:
        cid = _comparison(s, naval_direct, "queued")
        stale_before = models.utcnow() - timedelta(seconds=10)
        assert cs.claim(s, cid, 0, stale_before)
        assert not cs.claim(s, cid, 0, stale_before)  # heartbeat fresh: someone runs it
        _age(s, cid, 11)
        assert cs.claim(s, cid, 0, models.utcnow() - timedelta(seconds=10))  # its worker died


def test_a_queued_comparison_waits_while_the_broker_holds_messages(sessions, naval_direct):
    with sessions() as s:
        cid = _comparison(s, naval_direct, "queued")
        _age(s, cid, 50)
        assert reap(s, Sent(), 3, SETTINGS) == []  # behind other messages
        assert reap(s, Sent(), None, SETTINGS) == []  # broker unreadable: only the hard bound
        sent = Sent()
        assert reap(s, sent, 0, SETTINGS) == [(cid, "restarted")]  # its message is gone
        assert sent == [("subflow.run_comparison", [cid, 1])]
        _age(s, cid, 101)
        assert reap(s, Sent(), 3, SETTINGS) == [(cid, "restarted")]  # STALE_QUEUED_S in any case


def test_finished_comparisons_are_never_touched(sessions, naval_direct):
    with sessions() as s:
        ids = [_comparison(s, naval_direct, status) for status in ("succeeded", "failed", "cancelled")]
        for cid in ids:
            _age(s, cid, 10_000)
        assert reap(s, Sent(), 0, SETTINGS) == []
        assert [_row(s, cid).status for cid in ids] == ["succeeded", "failed", "cancelled"]


def test_a_stale_sweep_hands_out_again_only_its_unfinished_units(sessions, naval_direct):
    sweep = {"parameter": "run.duration_s", "values": [5, 6, 7]}
    with sessions() as s:
        cid = _comparison(s, naval_direct, "queued", sweep=sweep, repetitions=2)
        assert cs.claim(s, cid, 0)
        assert cs.set_units_total(s, cid, 6, 0)
        assert [cs.next_unit(s, cid, 0) for _ in range(4)] == [0, 1, 2, 3]
        assert cs.next_unit(s, cid, 1) is None  # another attempt
        assert cs.record_unit(s, cid, 1, {"sptcp": {}}, None, None)
        assert not cs.record_unit(s, cid, 1, {"other": {}}, None, None)  # a redelivered unit
        assert cs.record_unit(s, cid, 3, {"sptcp": {}}, None, None)
        row = _row(s, cid)
        assert (row.units_done, row.progress, row.units_dispatched) == (2, pytest.approx(2 / 6), 4)
        assert [u.summary for u in cs.units_of(s, cid)] == [{"sptcp": {}}, {"sptcp": {}}]
        _age(s, cid, 11)
        sent = Sent()
        assert reap(s, sent, 2, SETTINGS) == []  # units may still wait in the broker
        assert reap(s, sent, 0, SETTINGS) == [(cid, "units re-dispatched")]
        assert sent == [("subflow.run_unit", [cid, 0, 0]), ("subflow.run_unit", [cid, 2, 0])]
        assert _row(s, cid).restarts == 1 and _row(s, cid).status == "running"
        # a cancel stops the hand-out at once
        assert cs.cancel(s, cid)
        assert cs.next_unit(s, cid, 0) is None


def test_unit_at_is_expand_one_unit_at_a_time(naval_direct):
    spec = SweepSpec(parameter="nodes.uav.range_m", values=[100, 200, 300])
    units = expand(naval_direct, spec, 2)
    assert unit_count(spec, 2) == len(units) == 6
    for u in units:
        assert unit_at(naval_direct, spec, 2, u.index) == u
    assert unit_at(naval_direct, None, 3, 2) == expand(naval_direct, None, 3)[2]
    with pytest.raises(IndexError):
        unit_at(naval_direct, spec, 2, 6)

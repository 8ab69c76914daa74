"""Packet captures through the worker and the API in process (SQLite): the worker moves each capture file
out of the result document into ``packet_capture`` when the comparison succeeds; members list and download
them; anyone else gets 404, as for the comparison itself."""

from __future__ import annotations

import base64
import io

import dpkt
import pytest

from tests.unit.backend_sqlite import CAPABILITIES, api, fake_agent, queue, sessions  # noqa: F401

from subflow.comparison.compare import compare
from subflow.results.document import PacketCapture, ResultDocument
from subflow_backend import accounts, models
from subflow_engines import run_plan

WIRED = {
    "name": "capture-api", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
    "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 1}],
    "flows": [{"id": "f", "src": "a", "dst": "b"}], "run": {"duration_s": 3},
}


def _pcap(packets: int) -> bytes:
    """A libpcap file of ``packets`` Ethernet/IPv4/TCP SYNs (written by dpkt, independent of the engine)."""
    out = io.BytesIO()
    writer = dpkt.pcap.Writer(out, nano=True)
    for k in range(packets):
        tcp = dpkt.tcp.TCP(sport=40000 + k, dport=5201, flags=dpkt.tcp.TH_SYN)
        ip = dpkt.ip.IP(src=bytes([10, 64, 0, 1]), dst=bytes([10, 64, 0, 2]), p=dpkt.ip.IP_PROTO_TCP, data=tcp)
        writer.writepkt(bytes(dpkt.ethernet.Ethernet(data=ip)), ts=1.0 + k)
    return out.getvalue()


def _document(files: dict[str, bytes]) -> ResultDocument:
    """A fluid result of :data:`WIRED` with a capture of link ``a-b`` per strategy in ``files``, as the
    linux engine hands them over (base64 in the output)."""
    doc = compare(WIRED, sorted(files), runner=run_plan)
    for name, data in files.items():
        doc.strategies[name].captures = [PacketCapture(
            link="a-b", node="a", snaplen_bytes=256, size_bytes=len(data), packets=3, truncated=False,
            data_b64=base64.b64encode(data).decode())]
    return doc


@pytest.fixture
def tasks(sessions, monkeypatch):
    from subflow_worker import tasks

    monkeypatch.setattr(tasks, "SessionLocal", sessions)
    return tasks


def _running_comparison(api, sessions, tasks) -> tuple[str, str]:
    sid = api.post("/api/scenarios", json={**WIRED, "capture": ["a-b"]}).json()["id"]
    cid = api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"],
                                                                "engine": "linux"}).json()["id"]
    assert tasks._claim(cid) is not None
    return sid, cid


def _outsider_headers(sessions) -> dict[str, str]:
    with sessions() as s:
        user = accounts.create_user(s, "unit-outsider", "outsider-password")
        return {"Authorization": "Bearer " + accounts.create_api_token(s, user, "o", "read").secret}


def test_members_list_and_download_the_captures_others_get_404(api, sessions, tasks):
    sid, cid = _running_comparison(api, sessions, tasks)
    files = {"sptcp": _pcap(3), "mptcp": _pcap(5)}
    assert tasks._finish(cid, _document(files)) is True
    url = f"/api/scenarios/{sid}/comparisons/{cid}/captures"
    listed = api.get(url).json()
    assert listed["count"] == 2
    assert [(c["strategy"], c["link"], c["node"], c["size_bytes"]) for c in listed["data"]] == [
        ("mptcp", "a-b", "a", len(files["mptcp"])), ("sptcp", "a-b", "a", len(files["sptcp"]))]
    for c in listed["data"]:
        r = api.get(f"{url}/{c['id']}")
        assert r.status_code == 200 and r.content == files[c["strategy"]]
        assert r.headers["content-type"] == "application/vnd.tcpdump.pcap"
        assert r.headers["content-disposition"] == f'attachment; filename="capture-api-{c["strategy"]}-a-b.pcap"'
        assert len(list(dpkt.pcap.Reader(io.BytesIO(r.content)))) == (3 if c["strategy"] == "sptcp" else 5)
    # the stored result document describes the captures without their files
    result = api.get(f"/api/scenarios/{sid}/comparisons/{cid}").json()["result"]
    assert [c["data_b64"] for s in ("sptcp", "mptcp") for c in result["strategies"][s]["captures"]] == [None, None]
    assert result["strategies"]["mptcp"]["captures"][0]["size_bytes"] == len(files["mptcp"])
    # outside the project: neither the list nor a file exists
    outsider = _outsider_headers(sessions)
    first = listed["data"][0]["id"]
    assert api.get(url, headers=outsider).status_code == 404
    assert api.get(f"{url}/{first}", headers=outsider).status_code == 404
    # a capture id under another comparison, and an unknown id: 404
    _, other = _running_comparison_named(api, tasks, "capture-api-2")
    assert api.get(f"/api/scenarios/{sid}/comparisons/{other}/captures/{first}").status_code == 404
    assert api.get(f"{url}/not-a-capture").status_code == 404
    # deleted with the scenario (and its comparisons)
    assert api.delete(f"/api/scenarios/{sid}").status_code == 204
    with sessions() as s:
        assert s.query(models.PacketCapture).filter_by(comparison_id=cid).count() == 0


def _running_comparison_named(api, tasks, name: str) -> tuple[str, str]:
    sid = api.post("/api/scenarios", json={**WIRED, "name": name}).json()["id"]
    cid = api.post(f"/api/scenarios/{sid}/comparisons", json={"strategies": ["sptcp"]}).json()["id"]
    return sid, cid


def test_a_cancelled_comparison_keeps_no_capture_and_a_file_over_the_bound_is_not_stored(
        api, sessions, tasks, monkeypatch):
    sid, cid = _running_comparison(api, sessions, tasks)
    assert api.post(f"/api/scenarios/{sid}/comparisons/{cid}/cancel").status_code == 202
    assert tasks._finish(cid, _document({"sptcp": _pcap(3)})) is False
    with sessions() as s:
        assert s.query(models.PacketCapture).count() == 0
    sid, cid = _running_comparison_named(api, tasks, "capture-api-3")
    assert tasks._claim(cid) is not None
    small, large = _pcap(2), _pcap(200)
    monkeypatch.setattr(tasks.settings, "MAX_CAPTURE_BYTES", len(small))
    assert tasks._finish(cid, _document({"sptcp": small, "mptcp": large})) is True
    listed = api.get(f"/api/scenarios/{sid}/comparisons/{cid}/captures").json()["data"]
    assert [(c["strategy"], c["size_bytes"]) for c in listed] == [("sptcp", len(small))]

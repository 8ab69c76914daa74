"""Packet capture through REST on the real `linux` engine: a scenario's ``capture`` link is recorded per
strategy, stored with the result, listed and downloaded by the project's members (404 for anyone else),
and the file opens with dpkt holding the run's handshake and data."""

from __future__ import annotations

import io
import os
import uuid

import dpkt
import pytest

from tests.linux.scenarios import two_path

pytestmark = pytest.mark.integration

#: TCP option kind of Multipath TCP (RFC 8684)
TCPOPT_MPTCP = 30


def _segments(data: bytes) -> list[dpkt.tcp.TCP]:
    out = []
    for _ts, buf in dpkt.pcap.Reader(io.BytesIO(data)):
        ip = dpkt.ethernet.Ethernet(buf).data
        if isinstance(ip, dpkt.ip.IP) and isinstance(ip.data, dpkt.tcp.TCP):
            out.append((ip, ip.data))
    return out


@pytest.mark.flaky(reruns=1, reruns_delay=2)
def test_captures_of_a_linux_comparison_are_listed_and_downloaded_by_members_only(pg_stack, wait_comparison):
    engines = pg_stack.api.get("/engines", params={"refresh": True}).json()["engines"]
    linux = next((e for e in engines if e["name"] == "linux"), None)
    if os.geteuid() != 0 or linux is None or not linux["available"]:
        pytest.skip("the linux engine is not available here (needs root, ip, tc, iperf3)")
    doc = two_path(duration_s=4.0)
    doc["name"] = f"it-{uuid.uuid4().hex[:8]}-capture"
    doc["capture"] = ["a-r1"]
    sid = pg_stack.api.post("/scenarios", json=doc).json()["id"]
    me = pg_stack.api.get("/users/me").json()
    assert pg_stack.api.patch(f"/users/{me['id']}", json={"can_run_linux": True}).status_code == 200
    try:
        r = pg_stack.api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"],
                                                                      "engine": "linux"})
    finally:
        pg_stack.api.patch(f"/users/{me['id']}", json={"can_run_linux": False})
    assert r.status_code == 202, r.text
    cid = r.json()["id"]
    body, _ = wait_comparison(pg_stack, sid, cid, timeout_s=120)
    assert body["status"] == "succeeded", body["error"]
    url = f"/scenarios/{sid}/comparisons/{cid}/captures"
    listed = pg_stack.api.get(url).json()
    assert [(c["strategy"], c["link"], c["node"]) for c in listed["data"]] == [("mptcp", "a-r1", "a"),
                                                                             ("sptcp", "a-r1", "a")]
    for c in listed["data"]:
        r = pg_stack.api.get(f"{url}/{c['id']}")
        assert r.status_code == 200 and r.headers["content-type"] == "application/vnd.tcpdump.pcap"
        assert len(r.content) == c["size_bytes"]
        assert len(list(dpkt.pcap.Reader(io.BytesIO(r.content)))) == c["packets"] > 100  # ARP besides TCP
        segments = _segments(r.content)
        syn = [tcp for _, tcp in segments if tcp.flags & dpkt.tcp.TH_SYN and not tcp.flags & dpkt.tcp.TH_ACK]
        assert syn and any(tcp.flags & dpkt.tcp.TH_SYN and tcp.flags & dpkt.tcp.TH_ACK for _, tcp in segments)
        assert any(ip.len - ip.hl * 4 - tcp.off * 4 > 1000 for ip, tcp in segments)  # data segments
        mp_capable = any(kind == TCPOPT_MPTCP and opt and opt[0] >> 4 == 0
                         for kind, opt in dpkt.tcp.parse_opts(syn[0].opts))
        assert mp_capable == (c["strategy"] == "mptcp")
        # the stored result describes the capture, without the file
        stored = body["result"]["strategies"][c["strategy"]]["captures"]
        assert stored == [{**{k: c[k] for k in ("link", "node", "format", "snaplen_bytes", "size_bytes", "packets",
                                                 "truncated")}, "data_b64": None}]
    # a signed-in user outside the project sees neither the list nor a file
    password = uuid.uuid4().hex
    name = f"cap-{uuid.uuid4().hex[:8]}"
    assert pg_stack.api.post("/users", json={"username": name, "password": password}).status_code == 201
    with pg_stack.client(pg_stack.login(name, password)) as outsider:
        assert outsider.get(url).status_code == 404
        assert outsider.get(f"{url}/{listed['data'][0]['id']}").status_code == 404

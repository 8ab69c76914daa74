"""Packet capture on the linux engine: the pcap of a listed link, read back with dpkt (a maintained reader,
independent of the engine), holds the run's iperf3 connection: the handshake, MPTCP's MP_CAPABLE for an
MPTCP strategy, and data segments carrying payload."""

from __future__ import annotations

import base64
import io

import dpkt
import pytest

from subflow.runplan.resolve import resolve_plan
from subflow_engines import linux
from subflow_engines.linux import capabilities, commands
from subflow_engines.linux.capture import count_packets, packet_limit
from subflow_engines.linux.engine import validate

from .scenarios import two_path

pytestmark = pytest.mark.linux

#: TCP option kind of Multipath TCP (RFC 8684 §3), and the MP_CAPABLE subtype
TCPOPT_MPTCP = 30
MP_CAPABLE = 0


def _tcp_segments(data: bytes) -> list[tuple[float, dpkt.ip.IP, dpkt.tcp.TCP]]:
    """(time s, IP, TCP) of every TCP/IPv4 packet of a pcap file."""
    out = []
    for ts, buf in dpkt.pcap.Reader(io.BytesIO(data)):
        eth = dpkt.ethernet.Ethernet(buf)
        if isinstance(eth.data, dpkt.ip.IP) and isinstance(eth.data.data, dpkt.tcp.TCP):
            out.append((float(ts), eth.data, eth.data.data))
    return out


def _payload_bytes(ip: dpkt.ip.IP, tcp: dpkt.tcp.TCP) -> int:
    """TCP payload length from the headers (the snap length cut the stored payload)."""
    return ip.len - ip.hl * 4 - tcp.off * 4


def _mptcp_subtypes(tcp: dpkt.tcp.TCP) -> set[int]:
    return {opt[0] >> 4 for kind, opt in dpkt.tcp.parse_opts(tcp.opts) if kind == TCPOPT_MPTCP and opt}


def _capture_run(strategy: str, scenario: dict):
    out = linux.run(resolve_plan(scenario, strategy, "linux"))
    assert [c.link for c in out.captures] == scenario["capture"]
    return out


@pytest.mark.parametrize("strategy", ["sptcp", "mptcp"])
def test_the_capture_holds_the_handshake_and_the_data(strategy, need_mptcp, no_leftovers, monkeypatch):
    monkeypatch.setenv("CAPTURE_SNAPLEN_BYTES", "128")
    scenario = two_path(4.0, with_slow_path=strategy == "mptcp")
    scenario["capture"] = ["a-r1"]
    out = _capture_run(strategy, scenario)
    cap = out.captures[0]
    data = base64.b64decode(cap.data_b64)
    assert cap.node == "a" and cap.snaplen_bytes == 128 and cap.size_bytes == len(data) and not cap.truncated
    segments = _tcp_segments(data)
    assert cap.packets == sum(1 for _ in dpkt.pcap.Reader(io.BytesIO(data))) > 100
    syn = [(t, ip, tcp) for t, ip, tcp in segments if tcp.flags & dpkt.tcp.TH_SYN and not tcp.flags & dpkt.tcp.TH_ACK]
    synack = [(t, ip, tcp) for t, ip, tcp in segments if tcp.flags & dpkt.tcp.TH_SYN and tcp.flags & dpkt.tcp.TH_ACK]
    assert syn and synack, "no handshake in the capture"
    # the SYN-ACK answers a SYN of the capture (same connection, reversed), after it
    s_t, s_ip, s_tcp = syn[0]
    answer = [(t, tcp) for t, ip, tcp in synack
              if (ip.src, tcp.sport, ip.dst, tcp.dport) == (s_ip.dst, s_tcp.dport, s_ip.src, s_tcp.sport)]
    assert answer and answer[0][0] >= s_t and answer[0][1].ack == s_tcp.seq + 1
    if strategy == "mptcp":
        assert MP_CAPABLE in _mptcp_subtypes(s_tcp), "the first SYN carries no MP_CAPABLE"
        assert MP_CAPABLE in _mptcp_subtypes(answer[0][1])
    else:
        assert all(not _mptcp_subtypes(tcp) for _, _, tcp in segments)
    # data from a to b in segments of at most one MSS (1448 bytes); over a megabyte in the 3 s of traffic
    data_segments = [(ip, tcp) for _, ip, tcp in segments if _payload_bytes(ip, tcp) > 0 and ip.src == s_ip.src]
    assert 1000 < max(_payload_bytes(ip, tcp) for ip, tcp in data_segments) <= 1448
    assert sum(_payload_bytes(ip, tcp) for ip, tcp in data_segments) > 1_000_000


def test_the_size_cap_stops_the_capture(need_linux, no_leftovers, monkeypatch):
    monkeypatch.setenv("CAPTURE_SNAPLEN_BYTES", "96")
    monkeypatch.setenv("MAX_CAPTURE_BYTES", str(24 + 50 * (96 + 16)))
    scenario = two_path(3.0, with_slow_path=False)
    scenario["capture"] = ["r1-b"]
    cap = _capture_run("sptcp", scenario).captures[0]
    assert cap.truncated and cap.packets == 50
    assert cap.size_bytes <= 24 + 50 * (96 + 16)
    assert cap.node == "r1"


def test_without_tcpdump_a_capture_is_refused_before_anything_starts(monkeypatch):
    """No root needed: :func:`linux.validate` on a host description."""
    caps = capabilities.HostCapabilities(
        root=True, ip=True, tc=True, netns=True, veth=True, bridge=True, htb=True, u32=True, netem=True,
        iptables=True, statistic_match=True, nfqueue_target=True, nfqueue_binding=True, mptcp_enabled=True,
        mptcp_endpoints=True, mptcpize=True, iperf3=True, ss=True, congestion_control=["reno"])
    scenario = two_path(3.0, with_slow_path=False)
    scenario["capture"] = ["a-r1"]
    plan = resolve_plan(scenario, "sptcp", "linux")
    real = commands.which
    monkeypatch.setattr(commands, "which", lambda tool: None if tool == "tcpdump" else real(tool))
    with pytest.raises(linux.EngineCannotRun, match=r"^capture: packet capture needs tcpdump"):
        validate(plan, caps)
    monkeypatch.setattr(commands, "which", lambda tool: "/usr/bin/" + tool)
    assert all("capture" not in note for note in validate(plan, caps))  # runs (notes on what Linux fixes)


def test_the_packet_limit_keeps_the_file_under_the_cap_and_records_are_counted():
    assert packet_limit(24 + 10 * (96 + 16), 96) == 10
    assert packet_limit(24 + 10 * (96 + 16) - 1, 96) == 9
    with pytest.raises(linux.EngineCannotRun, match="MAX_CAPTURE_BYTES=100 holds no packet"):
        packet_limit(100, 96)
    header = bytes.fromhex("4d3cb2a1020004000000000000000000ffff000001000000")
    record = (b"\x01\x00\x00\x00\x00\x00\x00\x00" + (4).to_bytes(4, "little") + (60).to_bytes(4, "little")
              + b"abcd")
    assert count_packets(header + record * 3) == 3
    assert count_packets(header + record * 3 + record[:10]) == 3  # a record cut short by a kill
    assert count_packets(b"") == 0

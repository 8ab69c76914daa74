"""Fixtures of the ``linux`` engine tests (marker ``linux``).

Tests that run the engine need root, network namespaces, HTB, iperf3 (and, for
MPTCP, ``mptcpize`` from Debian's ``mptcpd`` and ``net.mptcp.enabled=1``); they skip
with the missing piece named otherwise. They take wall-clock time: about 15 minutes in all on the
project's two-core machine, most of it the grid cells' kernel runs (test_fluid_vs_linux.py).
"""

from __future__ import annotations

import os

import pytest

from subflow_engines import linux

#: generated Mininet-WiFi scripts (expected outputs): data, not test modules (they import mn_wifi)
collect_ignore_glob = ["expected/*"]


def pytest_configure(config):
    config.addinivalue_line("markers", "linux: tests of the linux engine (real kernel, root, network namespaces)")


@pytest.fixture(scope="session")
def caps():
    return linux.detect()


def _need(caps, *, mptcp: bool = False, delay: bool = False, loss: bool = False) -> None:
    if os.geteuid() != 0:
        pytest.skip("linux engine: needs root (network namespaces)")
    if not caps.available:
        missing = [k for k in ("ip", "tc", "netns", "veth", "htb", "iperf3", "ss") if not getattr(caps, k)]
        pytest.skip(f"linux engine unavailable on this host: missing {', '.join(missing)}; {caps.problems}")
    if mptcp and not (caps.mptcp_enabled and caps.mptcp_endpoints and caps.mptcpize):
        pytest.skip("linux engine: MPTCP needs net.mptcp.enabled=1, 'ip mptcp' and mptcpize (Debian mptcpd)")
    if delay and caps.delay_mechanism is None:
        pytest.skip("linux engine: no delay mechanism (netem, or NFQUEUE + fnfqueue)")
    if loss and caps.loss_mechanism is None:
        pytest.skip("linux engine: no loss mechanism (netem or iptables statistic)")


@pytest.fixture
def need_linux(caps):
    _need(caps)
    return caps


@pytest.fixture
def need_mptcp(caps):
    _need(caps, mptcp=True, delay=True)
    return caps


def assert_no_leftovers(prefix: str | None = None, owner_pid: int | None = None, before: dict | None = None) -> None:
    """None of the linux engine's namespaces, host links, records (and work directories) or recorded
    processes of run ``prefix`` / of the runs owned by process ``owner_pid``
    (:func:`subflow_engines.linux.leftovers`), beyond those in ``before``."""
    before = before or {}
    left = {kind: sorted(set(items) - set(before.get(kind, [])))
            for kind, items in linux.leftovers(prefix, owner_pid=owner_pid).items()}
    assert left == {"namespaces": [], "host_links": [], "records": [], "processes": []}, left


@pytest.fixture
def no_leftovers():
    """After the test: none of the linux engine's namespaces, host links, records or processes of
    the runs this process owns (their records name it) that were not on the host before it. Runs of
    other processes on the host (a validation batch, another test session, whose runs may start
    and end during this test) are theirs to check; a test that runs the engine in a child process
    checks that child's runs itself (tests/linux/test_stopped_runs.py)."""
    before = linux.leftovers(owner_pid=os.getpid()) if os.geteuid() == 0 else {}
    yield
    if os.geteuid() == 0:
        assert_no_leftovers(owner_pid=os.getpid(), before=before)

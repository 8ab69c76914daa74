"""The ``mininet-wifi`` engine fails loudly: a flow whose iperf3 failed is an error naming the flow.

On real Mininet-WiFi every iperf3 client of the first scripts failed with "Network is unreachable"
while the engine reported 0 Mbit/s for the whole run (Jain's index 1.0). :func:`output` reads the
script's printed result; these are the reports iperf3 3.12 writes (``-J``) in those cases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subflow.errors import EngineFailed
from subflow.io.exports import generate_script
from subflow.runplan.resolve import resolve_plan
from subflow_engines import mininet_wifi

from tests.conftest import load_example
from tests.unit.io.fake_mininet_wifi import run_with_fake_mininet

CLIENT = {"start": {"connecting_to": {"host": "10.255.0.1", "port": 5201}},
          "intervals": [{"sum": {"start": 0, "end": 1, "bytes": 375000, "bits_per_second": 3e6}}],
          "end": {"sum_sent": {"bytes": 375000, "bits_per_second": 3e6, "retransmits": 0}}}
SERVER = {"start": {"accepted_connection": {"host": "10.255.0.4", "port": 40000}},
          "intervals": [{"sum": {"start": k, "end": k + 1, "bytes": 375000, "bits_per_second": 3e6}}
                        for k in range(100)],
          "end": {"sum_received": {"bytes": 37500000, "bits_per_second": 3e6}}}
UNREACHABLE = {"start": {"connecting_to": {"host": "10.255.0.1", "port": 5201}}, "intervals": [], "end": {},
               "error": "unable to connect to server - server may have stopped running or use a different "
                        "port, firewall issue, etc.: Network is unreachable"}


def _plan():
    return resolve_plan(load_example("naval-direct-move"), "sptcp", "mininet-wifi")


def _stdout(flows: dict, interrupted: list | None = None, lag_s: float = 0.0) -> str:
    payload = {"launched_s": {"f1": 0.0, "f2": 0.0}, "flows": flows, "interrupted": interrupted or [],
               "clock_lag_s": lag_s}
    return f"noise\n{mininet_wifi.RESULT_BEGIN}\n{json.dumps(payload)}\n{mininet_wifi.RESULT_END}\n"


def _flow(client: dict | str, server: dict | str) -> dict:
    return {"client": client if isinstance(client, str) else json.dumps(client),
            "server": server if isinstance(server, str) else json.dumps(server)}


def test_complete_reports_give_the_servers_throughput():
    out = mininet_wifi.output(_plan(), _stdout({"f1": _flow(CLIENT, SERVER), "f2": _flow(CLIENT, SERVER)}))
    assert [f.id for f in out.flows] == ["f1", "f2"]
    assert out.flows[0].throughput_mbps[:3] == [3.0, 3.0, 3.0]


def test_a_run_whose_clock_fell_behind_is_an_error_not_figures():
    """Measured in the VM under TCG with the host loaded: the script's 0.1 s ticks fell 12 s behind real time,
    both iperf3 servers reported 10 s at zero and then 8–20 Mbit/s bursts over a 3 Mbit/s path."""
    flows = {"f1": _flow(CLIENT, SERVER), "f2": _flow(CLIENT, SERVER)}
    assert mininet_wifi.output(_plan(), _stdout(flows, lag_s=1.9)).flows  # within the bound: figures
    with pytest.raises(EngineFailed, match=r"fell 12\.0 s behind real time"):
        mininet_wifi.output(_plan(), _stdout(flows, lag_s=12.0))


def test_an_unreachable_network_is_an_error_naming_the_flow():
    stdout = _stdout({"f1": _flow(CLIENT, SERVER), "f2": _flow(UNREACHABLE, "")})
    with pytest.raises(EngineFailed, match="Network is unreachable") as exc:
        mininet_wifi.output(_plan(), stdout)
    assert exc.value.flow == "f2" and exc.value.engine == "mininet-wifi" and "flow f2" in str(exc.value)


@pytest.mark.parametrize("server, words", [
    ("", "server report unreadable"),
    (json.dumps({"error": "[Errno 2] No such file or directory: '/tmp/x/5201-server.json'"}), "No such file"),
    ({**SERVER, "intervals": []}, "no interval"),
])
def test_an_empty_server_report_is_an_error_naming_the_flow(server, words):
    with pytest.raises(EngineFailed, match=words) as exc:
        mininet_wifi.output(_plan(), _stdout({"f1": _flow(CLIENT, server), "f2": _flow(CLIENT, SERVER)}))
    assert exc.value.flow == "f1"


def test_an_interrupted_iperf3_keeps_its_report_as_the_linux_engine_does():
    """A client still running after its grace gets SIGINT (subflow.runplan.finish): iperf3 then writes its report
    with "interrupt - the client has terminated", and its server's with "the client has terminated" (iperf3
    ``iperf_got_sigend``). The receiver's timeline up to then is the measurement; the roles are named."""
    client = {**CLIENT, "error": "interrupt - the client has terminated"}
    server = {**SERVER, "error": "the client has terminated"}
    flows = {"f1": _flow(CLIENT, SERVER), "f2": _flow(client, server)}
    out = mininet_wifi.output(_plan(), _stdout(flows, interrupted=[["f2", "client"]]))
    assert out.flows[1].throughput_mbps[:3] == [3.0, 3.0, 3.0]
    assert out.flows[1].iperf3["interrupted"] == ["client"] and out.flows[0].iperf3["interrupted"] == []
    # the same errors without an interruption by the script are the flow's failure
    with pytest.raises(EngineFailed, match="client has terminated") as exc:
        mininet_wifi.output(_plan(), _stdout(flows))
    assert exc.value.flow == "f2"


def test_a_client_interrupted_in_the_results_exchange_keeps_its_servers_report():
    """Measured on Mininet-WiFi (naval-geo, MPTCP, 600 s): the client, interrupted after its grace while the
    end-of-test results were exchanged over the control connection, reported "interrupt - the client has
    terminated"; its server printed iperf3's warning line before its JSON and reported "unable to receive
    results: Bad file descriptor", with all 604 intervals."""
    client = {**CLIENT, "error": "interrupt - the client has terminated"}
    server = ("WARNING:  Size of data read does not correspond to offered length\n"
              + json.dumps({**SERVER, "error": "error - unable to receive results: Bad file descriptor"}))
    flows = {"f1": _flow(CLIENT, SERVER), "f2": _flow(client, server)}
    out = mininet_wifi.output(_plan(), _stdout(flows, interrupted=[["f2", "client"]]))
    assert out.flows[1].throughput_mbps[:3] == [3.0, 3.0, 3.0]
    assert out.flows[1].iperf3["server"]["warnings"] == [
        "WARNING:  Size of data read does not correspond to offered length"]
    flows["f2"] = _flow(CLIENT, server)  # the same server report with no interruption by the script
    with pytest.raises(EngineFailed, match="unable to receive results") as exc:
        mininet_wifi.output(_plan(), _stdout(flows))
    assert exc.value.flow == "f2"


def test_an_interrupted_iperf3_that_wrote_no_report_is_an_error_naming_the_flow():
    flows = {"f1": _flow(CLIENT, SERVER), "f2": _flow(CLIENT, "")}
    with pytest.raises(EngineFailed, match="server report unreadable") as exc:
        mininet_wifi.output(_plan(), _stdout(flows, interrupted=[["f2", "server"]]))
    assert exc.value.flow == "f2"


def test_a_script_that_printed_no_result_is_an_error():
    with pytest.raises(EngineFailed, match="printed no result .exit status 1.: .*wmediumd") as exc:
        mininet_wifi.output(_plan(), "", 1, "ConnectionRefusedError: wmediumd")
    assert exc.value.flow is None


def test_the_clients_error_is_named_before_a_server_left_waiting():
    stdout = _stdout({"f1": _flow(CLIENT, SERVER), "f2": _flow(UNREACHABLE, "")}, interrupted=[["f2", "server"]])
    with pytest.raises(EngineFailed, match="Network is unreachable") as exc:
        mininet_wifi.output(_plan(), stdout)
    assert exc.value.flow == "f2"


def test_an_empty_report_names_what_iperf3_said_on_its_standard_error():
    """The first MPTCP runs on real Mininet-WiFi left both reports empty: the VM lacked ``mptcpize``, and
    the shell said so on standard error, which the script keeps apart from the JSON and sends back."""
    f1 = {**_flow("", ""), "client_stderr": "bash: mptcpize: command not found\n"}
    with pytest.raises(EngineFailed, match=r"client report unreadable: .*\(stderr: bash: mptcpize: command not found\)"
                       ) as exc:
        mininet_wifi.output(_plan(), _stdout({"f1": f1, "f2": _flow(CLIENT, SERVER)}))
    assert exc.value.flow == "f1"


def test_a_report_with_an_error_keeps_only_the_last_lines_of_standard_error():
    said = "\n".join(f"line {k}" for k in range(10)) + "\n\n"
    f2 = {**_flow(UNREACHABLE, ""), "client_stderr": said}
    with pytest.raises(EngineFailed) as exc:
        mininet_wifi.output(_plan(), _stdout({"f1": _flow(CLIENT, SERVER), "f2": f2}))
    assert str(exc.value).endswith("(stderr: line 7 | line 8 | line 9)")



def test_an_iperf3_still_running_after_its_grace_is_interrupted_and_its_report_kept(tmp_path):
    """The linux engine's rule (subflow.runplan.finish): a client still running its grace after the flow's end
    gets SIGINT, on which iperf3 writes its report; the servers likewise. The engine keeps those reports."""
    plan = resolve_plan(load_example("uav-backhaul-planning"), "sptcp", "mininet-wifi")
    result = run_with_fake_mininet(tmp_path, generate_script(plan), duration_s=1, iperf="stuck", real_sleep_s=0.02)
    payload = _script_payload(result)
    assert sorted(map(tuple, payload["interrupted"])) == [("f1", "client"), ("f1", "server"),
                                                          ("f2", "client"), ("f2", "server")]
    out = mininet_wifi.output(plan, result["stdout"])
    assert [f.iperf3["interrupted"] for f in out.flows] == [["client", "server"], ["client", "server"]]
    assert all(f.throughput_mbps[0] == 1.0 for f in out.flows)


def test_an_iperf3_deaf_to_sigint_is_killed_and_its_flow_named(tmp_path):
    plan = resolve_plan(load_example("uav-backhaul-planning"), "sptcp", "mininet-wifi")
    result = run_with_fake_mininet(tmp_path, generate_script(plan), duration_s=1, iperf="deaf", real_sleep_s=0.02)
    pids = [c[2] for c in result["calls"] if c[0] == "iperf-pid"]
    assert len(pids) == 4 and not any(Path(f"/proc/{pid}").exists() and _running(pid) for pid in pids)
    with pytest.raises(EngineFailed, match="iperf3 client: .*No such file") as exc:
        mininet_wifi.output(plan, result["stdout"])
    assert exc.value.flow == "f1"


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _script_payload(result: dict) -> dict:
    text = result["stdout"]
    return json.loads(text.split(mininet_wifi.RESULT_BEGIN, 1)[1].split(mininet_wifi.RESULT_END, 1)[0])

"""How an engine ends a flow's measurement after the flow's planned end: one rule for the ``linux`` engine and
the Mininet-WiFi script (:func:`subflow.io.exports.generate_script`).

An ``iperf3`` client starts its ``-t`` clock only once its connection is set up, and a window of data may still
be in flight at its end, so it is given :func:`client_grace_s` after the flow's planned end; a client still
running then gets SIGINT, on which iperf3 prints its JSON report, and SIGKILL :data:`REPORT_WAIT_S` later. The
servers get :data:`SERVER_GRACE_S` more, then the same. The report of an interrupted iperf3 is kept: the
receiver's timeline up to the interruption is the measurement, and the engine says which roles were interrupted.

References
----------
iperf3 3.12 ``src/iperf_api.c`` ``iperf_got_sigend``: on SIGINT a client or server prints its results (JSON with
``-J``) before it exits.
"""

from __future__ import annotations

from subflow.runplan.document import FlowPlan, RunPlan

#: grace after a client's planned end: CLIENT_GRACE_BASE_S + CLIENT_GRACE_PER_RTT base RTTs, at most
#: CLIENT_GRACE_MAX_S (s)
CLIENT_GRACE_BASE_S = 3.0
CLIENT_GRACE_PER_RTT = 6
CLIENT_GRACE_MAX_S = 15.0
#: grace the servers get once the clients are done (s)
SERVER_GRACE_S = 3.0
#: wait between SIGINT (iperf3 prints its report) and SIGKILL (s)
REPORT_WAIT_S = 3.0
#: the base RTT assumed for a plan without flows (s)
DEFAULT_RTT_S = 0.1


def flow_base_rtt_s(plan: RunPlan, flow: FlowPlan) -> float:
    """The largest base round-trip time over the flow's subflow paths, s: twice the sum of the one-way
    ``delay_ms`` of the plan resources each path crosses (queueing left out)."""
    res = {r.id: r for r in plan.resources}
    best = 0.0
    for seg in flow.segments:
        for sp in seg.subflows:
            best = max(best, 2e-3 * sum(res[r].delay_ms for r in sp.resources))
    return best


def client_grace_s(plan: RunPlan) -> float:
    """Seconds a client may run past its planned end before SIGINT: ``3 + 6 · RTT`` with the largest base RTT of
    the plan's flows (:func:`flow_base_rtt_s`; :data:`DEFAULT_RTT_S` without flows), at most 15 s."""
    rtt_s = max((flow_base_rtt_s(plan, fp) for fp in plan.flows), default=DEFAULT_RTT_S)
    return min(CLIENT_GRACE_MAX_S, CLIENT_GRACE_BASE_S + CLIENT_GRACE_PER_RTT * rtt_s)


def longest_finish_s() -> float:
    """The longest time, s, from the last flow's planned end until every iperf3 has exited under this rule."""
    return CLIENT_GRACE_MAX_S + REPORT_WAIT_S + SERVER_GRACE_S + REPORT_WAIT_S

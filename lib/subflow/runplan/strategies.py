"""Registry of transport strategies that a comparison can ask for.

A strategy is a composition of four choices, each implemented once:

* ``paths`` — how the planner places the connection (the path policy of that name in
  :data:`subflow.runplan.path_policies.PATH_POLICIES`):
  ``hop`` / ``delay`` / ``tcpbp`` (one path by minimum hops, one-way delay, or
  TCPBP's d·√p),
  ``sticky`` (keep the current path while it exists), ``fastest`` /
  ``slowest`` (the available path with the highest / lowest bottleneck
  capacity), ``interfaces`` (one subflow per interface of the multi-homed end);
* ``coupling`` — congestion control across subflows: ``lia`` (RFC 6356),
  ``olia`` (Khalili et al. 2013) or ``uncoupled`` (per-path, as SCTP CMT);
* ``handover`` — what a single-path connection does when its path is cut or
  moves: ``bare`` (RTO and slow start), ``zwa`` (SDN zero-window freeze),
  ``spurious`` (SDN buffering + spurious-timeout recovery), ``seamless``
  (make-before-break primary change, as mSCTP);
* ``rate_limits`` — ``none`` or ``fdm`` (the SDN controller's Flow Deviation
  allocation installed as per-subflow rate limits, :mod:`subflow.runplan.controller`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from subflow.errors import UnknownStrategy


@dataclass(frozen=True)
class Strategy:
    """A named transport strategy (see the module docstring for the fields)."""

    name: str
    family: Literal["tcp", "mptcp", "sctp"]
    multipath: bool
    paths: Literal["hop", "delay", "tcpbp", "sticky", "fastest", "slowest", "interfaces", "lba", "lba-adjust"]
    coupling: Literal["lia", "olia", "uncoupled", "none"]
    handover: Literal["bare", "zwa", "spurious", "seamless"]
    description: str
    source: str
    rate_limits: Literal["none", "fdm"] = "none"

    @property
    def routing(self) -> str:
        """Kept for the v1 API: the path policy's name."""
        return self.paths

    def public(self) -> dict:
        return {**asdict(self), "routing": self.routing}


_TCP_BARE = (
    "At a handover the connection is cut for the association delay and resumes only when its "
    "retransmission timer fires (RFC 6298 exponential backoff), in slow start."
)

STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy("sptcp", "tcp", False, "hop", "none", "bare",
                 "Single-path TCP on the minimum-hop route. " + _TCP_BARE, "RFC 5681, RFC 6298"),
        Strategy("sptcp-delay", "tcp", False, "delay", "none", "bare",
                 "Single-path TCP on the minimum one-way-delay route. " + _TCP_BARE, "RFC 5681; tcpbp-thesis §2.4"),
        Strategy("sptcp-tcpbp", "tcp", False, "tcpbp", "none", "bare",
                 "Single-path TCP on the route that minimises TCPBP's d·√p (one-way delay times the square "
                 "root of the path loss: the Mathis model's throughput is largest there), found exactly. "
                 + _TCP_BARE, "tcpbp-thesis §3.1, Eq. 2.3"),
        Strategy("sptcp-zwa", "tcp", False, "hop", "none", "zwa",
                 "Single-path TCP whose SDN controller freezes the sender with a zero-window advertisement on "
                 "disassociation and reopens the window on re-association; falls back to bare TCP when the "
                 "path is shorter than the controller's notification delay, so the whole window was lost on "
                 "the stale route.", "sdn-spurious-timeout §2.1, §3.5 (Freeze-TCP / M-TCP)"),
        Strategy("sptcp-spurious", "tcp", False, "hop", "none", "spurious",
                 "Single-path TCP whose SDN controller buffers segments for the disassociated station and "
                 "flushes them on re-association, so the sender detects a spurious timeout (Eifel/F-RTO) and "
                 "resumes at its pre-handover cwnd.", "sdn-spurious-timeout §3.3-3.4; RFC 3522, 4015, 5682"),
        Strategy("mptcp", "mptcp", True, "interfaces", "lia", "bare",
                 "Multipath TCP: one subflow per interface of the multi-homed end, LIA coupled congestion "
                 "control and Linux's scheduler (the subflow whose queue would flush soonest); a handover only adds or removes a subflow.",
                 "RFC 8684, RFC 6356; sd-mptcp-tactical §IV"),
        Strategy("mptcp-fdm", "mptcp", True, "interfaces", "lia", "bare",
                 "MPTCP steered by an SDN controller: every controller interval (and after associations), "
                 "the Flow Deviation Method allocates each connection's demand over its subflow paths for "
                 "least mean delay and the controller installs the per-subflow rates as queue limits.",
                 "sd-mptcp-tactical §IV, §V.C; Fratta, Gerla, Kleinrock 1973", rate_limits="fdm"),
        Strategy("mptcp-lba", "mptcp", True, "lba", "lia", "bare",
                 "MPTCP whose subflows are routed by scMPTCP's load- and bottleneck-aware algorithm: paths "
                 "up to shortest + 3 hops ranked by available bandwidth, avoiding the bottlenecks of the "
                 "connection's earlier subflows, up to 4 subflows.",
                 "scmptcp-satellite §III-IV, Table 1"),
        Strategy("mptcp-lba-adjust", "mptcp", True, "lba-adjust", "lia", "bare",
                 "mptcp-lba plus scMPTCP's adjustment: subflows of a connection that share a bottleneck are "
                 "re-routed, longest first.",
                 "scmptcp-satellite §IV, Table 2"),
        Strategy("mptcp-olia", "mptcp", True, "interfaces", "olia", "bare",
                 "Multipath TCP with the Opportunistic Linked Increases Algorithm: like mptcp, but the "
                 "coupled increase shifts traffic from paths with the largest windows to the best paths "
                 "(largest inter-loss distance / RTT^2), which LIA does not (it is not Pareto-optimal).",
                 "Khalili, Gast, Popovic, Le Boudec, IEEE/ACM ToN 21(5), 2013; draft-khalili-mptcp-congestion-control"),
        Strategy("mptcp-uncoupled", "mptcp", True, "interfaces", "uncoupled", "bare",
                 "Multipath TCP as upstream Linux runs it: one subflow per interface, each with its own "
                 "congestion control (the scenario's, NewReno or CUBIC) and no coupling, Linux's scheduler. "
                 "At a bottleneck shared with other flows it takes one TCP's share per subflow, which LIA "
                 "and OLIA exist to avoid; on disjoint paths it uses each path fully.",
                 "RFC 8684; RFC 6356 §1; Linux net/mptcp (no coupled congestion control)"),
        Strategy("sctp-failover", "sctp", False, "sticky", "none", "bare",
                 "SCTP with multihoming used only for failover: data stays on the primary path until it "
                 "fails; the retransmission timeout moves it to the alternate path.",
                 "RFC 4960 §6.4; msctp-cmt-handover §II"),
        Strategy("msctp-best", "sctp", False, "fastest", "none", "seamless",
                 "Mobile SCTP, best-case handover policy: the primary stays on the faster network as long as "
                 "it is available; the primary change is make-before-break.", "RFC 5061; msctp-cmt-handover Eq. 5"),
        Strategy("msctp-worst", "sctp", False, "slowest", "none", "seamless",
                 "Mobile SCTP, worst-case handover policy: the primary moves to the slower network as soon as "
                 "it is available.", "RFC 5061; msctp-cmt-handover Eq. 4"),
        Strategy("cmt-pf", "sctp", True, "interfaces", "uncoupled", "bare",
                 "SCTP Concurrent Multipath Transfer with Potentially-Failed paths: both paths carry data with "
                 "per-path congestion control; a shared receive buffer blocks when paths differ a lot.",
                 "msctp-cmt-handover §III, Eq. 3"),
    )
}


def get_strategy(name: str) -> Strategy:
    """Return the strategy called ``name``.

    Raises
    ------
    UnknownStrategy
        If no strategy has that name.
    """
    try:
        return STRATEGIES[name]
    except KeyError:
        raise UnknownStrategy(name, sorted(STRATEGIES)) from None

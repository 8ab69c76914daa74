"""A rated flow's sending rate, capped at every instant on the kernel engines.

A flow with ``rate_mbps`` offers at most that much at any moment (the fluid engine caps its
sending rate at each step). ``iperf3 -b`` alone does not do this: it throttles the *average
since the test started* (``iperf_check_throttle`` in iperf3's ``iperf_api.c``, reported upstream
as "bandwidth limit overshoot after micro outages"), so after an outage it sends as fast as the path allows until the average has
caught up — on naval-geo that was 9.5–13 Mbit/s through the UAV for a 3 Mbit/s flow.

The kernel engines therefore shape each rated flow at its source, below TCP and across all
of its subflows: every egress interface of the source's namespace redirects the flow's
packets (TCP, destination port = the flow's iperf3 port; MPTCP's subflows share that port)
with a ``clsact`` egress filter and ``mirred`` to an IFB device, where one HTB class per flow
(rate = ceil = the flow's rate as a shaper counts it) releases them at no more than the rate;
IFB hands each packet back to the interface it came from, whose own shaper (the link's
capacity) then applies. ``iperf3 -b`` stays, so a flow that keeps up is application-limited;
after an outage it is held to its rate instead of bursting.

The commands are produced here once and run by the ``linux`` engine (``ip -n``/``tc -n``) and,
as text, by the exported Mininet-WiFi script (``node.cmd``).

References
----------
.. [1] Linux ``tc-mirred(8)``, ``tc-htb(8)``; IFB: ``drivers/net/ifb.c``.
.. [2] esnet/iperf, ``iperf_check_throttle``: the ``-b`` throttle compares the bytes sent with
   rate × seconds since the start of the test.
"""

from __future__ import annotations

from collections.abc import Iterable

from subflow.runplan.document import capacity_for_goodput_mbps

#: name of the IFB device in a source's namespace (one per namespace; it holds every rated flow from there)
IFB_DEV = "sfrate"
#: packets the IFB class of one flow may hold (TCP small queues keep it to a few per socket)
QUEUE_PACKETS = 1000
#: first HTB minor number of the per-flow classes on the IFB device
FIRST_MINOR = 10


def cap_kbit(rate_mbps: float, mss_bytes: int) -> int:
    """The HTB rate (kbit/s, integer, as ``tc`` takes it) that lets ``rate_mbps`` of TCP goodput
    through with segments of ``mss_bytes``: the frame overhead is added
    (:func:`subflow.runplan.document.capacity_for_goodput_mbps`), so the goodput a receiver
    measures is the flow's rate, not 4 % under it. At least 8 kbit/s."""
    return max(8, int(round(capacity_for_goodput_mbps(rate_mbps, mss_bytes) * 1000)))


def cap_commands(devs: Iterable[str], caps: list[tuple[int, int]], ifb: str = IFB_DEV) -> list[list[str]]:
    """The ``ip``/``tc`` commands (argument lists, without a namespace) that cap the flows of one
    source namespace.

    Parameters
    ----------
    devs : iterable of str
        The namespace's egress interfaces (veths, station interfaces, bridges; not bridge ports,
        whose packets already went through the bridge, nor ``lo``).
    caps : list of (int, int)
        ``(destination port, rate in kbit/s)`` of each rated flow from this namespace
        (:func:`cap_kbit`); ports are distinct.
    ifb : str
        Name of the IFB device (at most 15 characters; distinct per namespace).

    Returns
    -------
    list of list of str
        In order: the IFB device, its HTB root, per flow a class with a pfifo and a u32 filter on
        the port, and per interface a ``clsact`` qdisc with one redirect filter per flow.

    Raises
    ------
    ValueError
        If ``caps`` is empty or names a port twice.
    """
    ports = [p for p, _ in caps]
    if not caps or len(set(ports)) != len(ports):
        raise ValueError(f"cap_commands needs distinct ports, got {ports}")
    cmds = [["ip", "link", "add", ifb, "type", "ifb"], ["ip", "link", "set", "dev", ifb, "up"],
            ["tc", "qdisc", "add", "dev", ifb, "root", "handle", "1:", "htb"]]
    for k, (port, kbit) in enumerate(sorted(caps)):
        minor = FIRST_MINOR + k
        cmds += [
            ["tc", "class", "add", "dev", ifb, "parent", "1:", "classid", f"1:{minor}", "htb",
             "rate", f"{kbit}kbit", "ceil", f"{kbit}kbit"],
            ["tc", "qdisc", "add", "dev", ifb, "parent", f"1:{minor}", "handle", f"{minor}:", "pfifo",
             "limit", str(QUEUE_PACKETS)],
            ["tc", "filter", "add", "dev", ifb, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
             "match", "ip", "protocol", "6", "0xff", "match", "ip", "dport", str(port), "0xffff",
             "flowid", f"1:{minor}"],
        ]
    for dev in devs:
        cmds.append(["tc", "qdisc", "add", "dev", dev, "clsact"])
        for port, _ in sorted(caps):
            cmds.append(["tc", "filter", "add", "dev", dev, "egress", "protocol", "ip", "prio", "1", "u32",
                         "match", "ip", "protocol", "6", "0xff", "match", "ip", "dport", str(port), "0xffff",
                         "action", "mirred", "egress", "redirect", "dev", ifb])
    return cmds


__all__ = ["IFB_DEV", "QUEUE_PACKETS", "FIRST_MINOR", "cap_kbit", "cap_commands"]

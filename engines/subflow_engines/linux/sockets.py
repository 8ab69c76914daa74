"""Per-subflow TCP state from ``ss -tinH`` (``tcp_info`` of every TCP socket, MPTCP subflows included).

The ``linux`` engine polls ``ss -N <namespace> -tinH`` at every interval boundary:
on the receiver for ``bytes_received`` (in-order bytes per subflow: goodput), on the
sender for ``cwnd`` (packets), ``retrans`` (total retransmitted segments),
``backoff`` (RTO backoffs) and ``bytes_acked``. Field meanings: ``struct
tcp_info`` in ``include/uapi/linux/tcp.h`` and ``ss(8)``; MPTCP subflows carry the
``tcp-ulp-mptcp`` token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import commands

_ADDR_RE = re.compile(r"^\[?(?:::ffff:)?([0-9.]+)(?:%[^\]:]+)?\]?:(\d+)$")


@dataclass
class SockInfo:
    state: str
    local: str
    lport: int
    peer: str
    pport: int
    mptcp: bool = False
    info: dict[str, str] = field(default_factory=dict)

    def num(self, key: str, default: float = 0.0) -> float:
        v = self.info.get(key)
        if v is None:
            return default
        try:
            return float(v.split("/")[-1] if key == "retrans" else v.split("/")[0])
        except ValueError:
            return default

    @property
    def key(self) -> tuple[str, int, str, int]:
        return (self.local, self.lport, self.peer, self.pport)


def _addr(tok: str) -> tuple[str, int] | None:
    m = _ADDR_RE.match(tok)
    if not m:
        return None
    return m.group(1), int(m.group(2))


def parse_ss(text: str) -> list[SockInfo]:
    """Parse ``ss -tinH`` output (a socket line, then an indented info line).

    Examples
    --------
    >>> s = parse_ss("ESTAB 0 0 10.1.2.1%eth1:39841 10.1.1.2:5201\\n\\t reno cwnd:231 retrans:0/7 "
    ...              "bytes_acked:1101622 tcp-ulp-mptcp flags:Jjec\\n")
    >>> (s[0].local, s[0].lport, s[0].pport, s[0].mptcp, s[0].num("cwnd"), s[0].num("retrans"))
    ('10.1.2.1', 39841, 5201, True, 231.0, 7.0)
    """
    out: list[SockInfo] = []
    cur: SockInfo | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            if cur is None:
                continue
            for tok in line.split():
                if tok == "tcp-ulp-mptcp":
                    cur.mptcp = True
                elif ":" in tok and not tok.startswith("("):
                    k, _, v = tok.partition(":")
                    cur.info.setdefault(k, v)
            continue
        parts = line.split()
        if len(parts) < 5:
            cur = None
            continue
        la, pa = _addr(parts[3]), _addr(parts[4])
        if la is None or pa is None:
            cur = None
            continue
        cur = SockInfo(parts[0], la[0], la[1], pa[0], pa[1])
        out.append(cur)
    return out


def sample(ns: str) -> list[SockInfo]:
    """Every non-listening TCP socket in namespace ``ns``."""
    proc = commands.run(["ss", "-N", ns, "-tinH"], check=False, timeout=10)
    return parse_ss(proc.stdout)

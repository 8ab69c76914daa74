"""TCP throughput models (TCPBP thesis Ch. 2; Mathis et al. 1997; Padhye et al. 1998).

* :func:`mathis_throughput_mbps` — the inverse-square-root law
  MSS·C / (RTT·√p) (Mathis et al. 1997; thesis Eq. 2.2 with k = −1/2).
* :func:`padhye_throughput_mbps` — Padhye et al. 1998, the full model with
  fast retransmit, timeouts and a window limit (their Eq. 31).
* :func:`padhye_approx_throughput_mbps` — the closed-form approximation
  (their Eq. 33).
* :func:`inverse_sqrt_law` — 1/(RTT·√p), the figure of merit of thesis Table 4.
* :func:`jain_index` — Jain's fairness index (thesis Eq. 2.1; defined in
  :mod:`subflow.results.document`); an empty or all-zero input gives 1.0 (everyone got
  the same: nothing).

The routing metrics whose costs these models motivate (hop, delay, loss,
TCPBP's d·√p) are in :mod:`subflow.planning.shortest_paths`; measured link state and
route hysteresis in :mod:`subflow.planning.link_state`.

Round trip convention (thesis Table 4)
--------------------------------------
Routing uses one-way values; Table 4 quotes round-trip values of a symmetric
route: RTT = 2·d and p_rt = 1 − (1 − p)², see :func:`round_trip`.

References
----------
.. [1] L. H. M. Rosa, "TCPBP: TCP Best Path", thesis, Eqs. 2.1–2.3, Table 4.
.. [2] M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
   TCP congestion avoidance algorithm", CCR 27(3), 1997.
.. [3] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a
   simple model and its empirical validation", SIGCOMM 1998, Eqs. 31–33.
"""

from __future__ import annotations

import math

from subflow.results.document import jain_index

__all__ = [
    "MATHIS_C",
    "inverse_sqrt_law",
    "jain_index",
    "mathis_throughput_mbps",
    "padhye_approx_throughput_mbps",
    "padhye_throughput_mbps",
    "round_trip",
]

MATHIS_C = math.sqrt(1.5)
"""Mathis et al.'s constant for periodic loss without delayed ACKs, √(3/2) ≈ 1.22."""


def round_trip(delay_ms: float, loss: float) -> tuple[float, float]:
    """Round-trip (RTT in s, loss) of a symmetric route: (2·d, 1 − (1 − p)²).

    This is the convention that reproduces thesis Table 4 from one-way values.

    Examples
    --------
    >>> rtt, p = round_trip(7.5, 0.0222222)
    >>> round(rtt, 4), round(p, 5)
    (0.015, 0.04395)
    """
    return 2.0 * delay_ms / 1000.0, 1.0 - (1.0 - loss) ** 2


def inverse_sqrt_law(rtt_s: float, loss: float) -> float:
    """1/(RTT·√p) in 1/s — proportional to TCP throughput (thesis Eq. 2.3, Table 4).

    Returns ``inf`` for a lossless or zero-delay path.
    """
    if rtt_s <= 0 or loss <= 0:
        return math.inf
    return 1.0 / (rtt_s * math.sqrt(loss))


def mathis_throughput_mbps(mss_bytes: float, rtt_s: float, loss: float, c: float = MATHIS_C) -> float:
    """Steady-state TCP throughput MSS·C/(RTT·√p), Mbit/s (Mathis et al. 1997).

    Parameters
    ----------
    mss_bytes : float
        Maximum segment size, bytes.
    rtt_s : float
        Round-trip time, s (> 0).
    loss : float
        Round-trip packet loss probability in [0, 1).
    c : float
        Constant: √(3/2) for periodic loss (default), 1 in the thesis's Fig. 1.

    Returns
    -------
    float
        Mbit/s (``inf`` if ``loss`` is 0).

    Examples
    --------
    >>> round(mathis_throughput_mbps(1460, 0.010, 1e-5, c=1.0), 1)  # thesis §3.6.1: "≈ 369.4 Mbps"
    369.4
    """
    if rtt_s <= 0:
        raise ValueError("rtt_s must be > 0")
    if not 0.0 <= loss < 1.0:
        raise ValueError("loss must be in [0, 1)")
    if loss == 0:
        return math.inf
    return mss_bytes * 8 * c / (rtt_s * math.sqrt(loss)) / 1e6


def _padhye_q(p: float, w: float) -> float:
    """Q̂(p, w): probability that a loss in a window of w packets is a timeout (Eq. 24)."""
    s = 1.0 - p
    den = 1.0 - s**w
    if den <= 0:
        return 1.0
    return min(1.0, (1.0 - s**3) * (1.0 + s**3 * (1.0 - s ** (w - 3))) / den)


def padhye_throughput_mbps(
    mss_bytes: float,
    rtt_s: float,
    loss: float,
    t0_s: float = 1.0,
    b: int = 2,
    wmax_packets: float | None = None,
    timeouts: str = "reno",
    ack_loss: float = 0.0,
) -> float:
    """TCP Reno throughput with fast retransmit, timeouts and window limit (Padhye et al. 1998, Eq. 31).

    With E[W] = (2+b)/(3b) + √(8(1−p)/(3bp) + ((2+b)/(3b))²),
    f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶ and Q̂ the timeout probability:

    * if E[W] < Wmax:  B = [(1−p)/p + E[W] + Q̂(E[W])/(1−p)] /
      [RTT·(b/2·E[W] + 1) + Q̂(E[W])·T0·f(p)/(1−p)]
    * else:  B = [(1−p)/p + Wmax + Q̂(Wmax)/(1−p)] /
      [RTT·(b/8·Wmax + (1−p)/(p·Wmax) + 2) + Q̂(Wmax)·T0·f(p)/(1−p)]

    in packets per second, times MSS.

    Parameters
    ----------
    mss_bytes : float
        Segment size, bytes.
    rtt_s : float
        Round-trip time, s (> 0).
    loss : float
        Loss indication probability p in [0, 1).
    t0_s : float
        Base retransmission timeout T0, s (default 1 s, RFC 6298's floor).
    b : int
        Packets acknowledged per ACK (2 with delayed ACKs).
    wmax_packets : float, optional
        Receiver window limit, packets; ``None`` for no limit.
    timeouts : {"reno", "rack-tlp"}
        ``reno``: Q̂ of Eq. 24 (three duplicate ACKs needed). ``rack-tlp``: a stack with SACK,
        RACK and tail loss probes (Linux; RFC 8985 §6–7), which times out only when no segment
        after the lost one and no probe is SACKed: Q = q·(1 − q^w)/(w·(1 − q)), q = 1 − (1 − p)(1 − ack_loss)
        (the fluid engine's ``rack_tlp_timeout_probability``).
    ack_loss : float
        ``rack-tlp`` only: loss probability of the ACK path, in [0, 1).

    Returns
    -------
    float
        Mbit/s. With ``loss == 0``: Wmax·MSS/RTT, or ``inf`` without a window limit.

    Examples
    --------
    >>> round(padhye_throughput_mbps(1460, 0.1, 0.01), 3)   # E[W] ≈ 12.2, Q̂ ≈ 0.28
    0.812
    >>> round(padhye_approx_throughput_mbps(1460, 0.1, 0.01), 3)
    0.825
    """
    if rtt_s <= 0:
        raise ValueError("rtt_s must be > 0")
    if not 0.0 <= loss < 1.0:
        raise ValueError("loss must be in [0, 1)")
    bits = mss_bytes * 8
    p = loss
    if p == 0:
        return math.inf if wmax_packets is None else wmax_packets * bits / rtt_s / 1e6
    a = (2.0 + b) / (3.0 * b)
    ew = a + math.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + a * a)
    fp = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    if timeouts not in ("reno", "rack-tlp"):
        raise ValueError("timeouts must be 'reno' or 'rack-tlp'")
    if not 0.0 <= ack_loss < 1.0:
        raise ValueError("ack_loss must be in [0, 1)")
    qq = 1.0 - (1.0 - p) * (1.0 - ack_loss)

    def _q(p: float, w: float) -> float:
        if timeouts == "reno":
            return _padhye_q(p, w)
        w = max(w, 1.0)
        return qq * (1.0 - qq**w) / (w * (1.0 - qq))

    if wmax_packets is None or ew < wmax_packets:
        q = _q(p, ew)
        rate = ((1 - p) / p + ew + q / (1 - p)) / (rtt_s * (b / 2 * ew + 1) + q * t0_s * fp / (1 - p))
    else:
        w = wmax_packets
        q = _q(p, w)
        rate = ((1 - p) / p + w + q / (1 - p)) / (
            rtt_s * (b / 8 * w + (1 - p) / (p * w) + 2) + q * t0_s * fp / (1 - p)
        )
    return rate * bits / 1e6


def padhye_approx_throughput_mbps(
    mss_bytes: float, rtt_s: float, loss: float, t0_s: float = 1.0, b: int = 2, wmax_packets: float | None = None
) -> float:
    """Padhye et al.'s closed-form approximation (their Eq. 33), Mbit/s:
    min(Wmax/RTT, 1 / (RTT·√(2bp/3) + T0·min(1, 3√(3bp/8))·p·(1 + 32p²))) × MSS.
    """
    if rtt_s <= 0:
        raise ValueError("rtt_s must be > 0")
    if not 0.0 <= loss < 1.0:
        raise ValueError("loss must be in [0, 1)")
    bits = mss_bytes * 8
    p = loss
    cap = math.inf if wmax_packets is None else wmax_packets / rtt_s
    if p == 0:
        return cap * bits / 1e6
    rate = 1.0 / (rtt_s * math.sqrt(2 * b * p / 3) + t0_s * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p))
    return min(cap, rate) * bits / 1e6

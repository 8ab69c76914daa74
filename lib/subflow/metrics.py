"""Routing metrics, TCP throughput models and link-state handling (TCPBP thesis Ch. 2–4).

Path costs
----------
``hop`` (hops), ``delay`` (Σ one-way ``delay_ms``), ``loss`` (composed one-way
loss 1 − Π(1 − p_i)) and ``tcpbp`` (f(d, p) = d·√p, thesis §3.1 and Eq. 2.3,
with d the one-way delay in ms and p the composed one-way loss). Routes under
these metrics are computed by :mod:`subflow.shortest_paths`.

Throughput models
-----------------
* :func:`mathis_throughput_mbps` — the inverse-square-root law
  MSS·C / (RTT·√p) (Mathis et al. 1997; thesis Eq. 2.2 with k = −1/2).
* :func:`padhye_throughput_mbps` — Padhye et al. 1998, the full model with
  fast retransmit, timeouts and a window limit (their Eq. 31).
* :func:`padhye_approx_throughput_mbps` — the closed-form approximation
  (their Eq. 33).
* :func:`inverse_sqrt_law` — 1/(RTT·√p), the figure of merit of thesis Table 4.
* :func:`jain_index` — Jain's fairness index (thesis Eq. 2.1); an empty or
  all-zero input gives 1.0 (everyone got the same: nothing).

Round trip convention (thesis Table 4)
--------------------------------------
Routing uses one-way values; Table 4 quotes round-trip values of a symmetric
route: RTT = 2·d and p_rt = 1 − (1 − p)², see :func:`round_trip`.

Link state (thesis §3.4, §3.5, §4.1)
------------------------------------
:class:`LinkStateEstimator` keeps, per arc, the last ``sma_window`` samples of
measured delay and loss and presents their simple moving average (Eq. 2.4),
optionally quantised to the thesis's granularity (delay to 0.1 ms, loss to
multiples of 0.01 %); until the first measurement, routing falls back to
``hop`` (§3.5.1). :func:`select_with_hysteresis` keeps the current route unless
the best one is better by more than Δz (§3.5.3).

References
----------
.. [1] L. H. M. Rosa, "TCPBP: TCP Best Path", thesis, Eqs. 2.1–2.4, §3.1–§3.5, §4.1.
.. [2] M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
   TCP congestion avoidance algorithm", CCR 27(3), 1997.
.. [3] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a
   simple model and its empirical validation", SIGCOMM 1998, Eqs. 31–33.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from subflow.errors import UnknownNode
from subflow.network import Network
from subflow.shortest_paths import METRICS, Path, metric_cost
from subflow.results import jain_index

__all__ = [
    "METRICS",
    "LinkStateEstimator",
    "LinkStateOptions",
    "compose_loss",
    "inverse_sqrt_law",
    "jain_index",
    "mathis_throughput_mbps",
    "padhye_approx_throughput_mbps",
    "padhye_throughput_mbps",
    "path_on",
    "quantize_delay_ms",
    "quantize_loss",
    "round_trip",
    "select_with_hysteresis",
    "tcpbp_cost",
]

MATHIS_C = math.sqrt(1.5)
"""Mathis et al.'s constant for periodic loss without delayed ACKs, √(3/2) ≈ 1.22."""


def compose_loss(losses: Sequence[float]) -> float:
    """Loss of a path whose hops lose independently: 1 − Π(1 − p_i).

    Examples
    --------
    >>> round(compose_loss([0.1, 0.1]), 4)
    0.19
    """
    survive = 1.0
    for p in losses:
        if not 0.0 <= p < 1.0:
            raise ValueError(f"loss {p!r} outside [0, 1)")
        survive *= 1.0 - p
    return 1.0 - survive


def tcpbp_cost(delay_ms: float, loss: float) -> float:
    """TCPBP path cost f(d, p) = d·√p (thesis §3.1), in ms.

    Parameters
    ----------
    delay_ms : float
        One-way path delay, ms.
    loss : float
        Composed one-way loss in [0, 1).

    Examples
    --------
    >>> round(tcpbp_cost(13.3, 0.0068876), 4)   # route 1⇒3⇒4⇒10 of thesis Table 4
    1.1038
    """
    if delay_ms < 0 or not 0.0 <= loss < 1.0:
        raise ValueError("delay_ms must be >= 0 and loss in [0, 1)")
    return delay_ms * math.sqrt(loss)


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
    if wmax_packets is None or ew < wmax_packets:
        q = _padhye_q(p, ew)
        rate = ((1 - p) / p + ew + q / (1 - p)) / (rtt_s * (b / 2 * ew + 1) + q * t0_s * fp / (1 - p))
    else:
        w = wmax_packets
        q = _padhye_q(p, w)
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


# --------------------------------------------------------------------------- link state


def quantize_delay_ms(delay_ms: np.ndarray | float, step_ms: float = 0.1) -> np.ndarray | float:
    """Round delays to multiples of ``step_ms`` (thesis §4.1: 0.1 ms), half up.

    Examples
    --------
    >>> float(quantize_delay_ms(2.46)), float(quantize_delay_ms(10.65))
    (2.5, 10.7)
    """
    x = np.floor(np.asarray(delay_ms, dtype=float) / step_ms + 0.5 + 1e-9) * step_ms
    return np.round(x, 10)


def quantize_loss(loss: np.ndarray | float, step: float = 1e-4) -> np.ndarray | float:
    """Round losses to multiples of ``step`` (thesis §4.1: 0.01 % = 1e-4), half up,
    kept below 1.

    Examples
    --------
    >>> float(quantize_loss(0.00234))
    0.0023
    """
    x = np.floor(np.asarray(loss, dtype=float) / step + 0.5 + 1e-9) * step
    return np.minimum(np.round(x, 12), 1.0 - step)


class LinkStateOptions(BaseModel):
    """How measured link state feeds the routing metric (thesis §3.4, §3.5, §4.1)."""

    model_config = ConfigDict(extra="forbid")

    granularity: bool = Field(True, description="Quantise delay to delay_step_ms and loss to loss_step.")
    delay_step_ms: float = Field(0.1, gt=0, description="Delay granularity, ms (thesis: 0.1 ms).")
    loss_step: float = Field(1e-4, gt=0, lt=1, description="Loss granularity (thesis: 0.01 % = 1e-4).")
    sma_window: int = Field(3, ge=1, description="Samples averaged (thesis §4.1: the last 3 samples of 10 s).")
    hysteresis_dz: float = Field(0.0, ge=0, description="Absolute Δz, in the metric's cost unit.")
    hysteresis_rel: float = Field(0.0, ge=0, description="Relative Δz, a fraction of the current route's cost.")


class LinkStateEstimator:
    """Simple moving average (thesis Eq. 2.4) of per-arc delay and loss samples.

    Parameters
    ----------
    net : Network
        Topology whose arcs are measured (its own delay/loss are the nominal
        values, not measurements).
    options : LinkStateOptions, optional
        Window, granularity.

    Examples
    --------
    >>> net = Network.from_links(["a", "b"], [("ab", "a", "b", 1.0, 0.0, 10)])
    >>> est = LinkStateEstimator(net, LinkStateOptions(sma_window=2))
    >>> est.routing_metric("tcpbp")          # no measurement yet: hop count (§3.5.1)
    'hop'
    >>> est.observe([2.0, 2.0], [0.01, 0.01]); est.observe([4.0, 4.0], [0.03, 0.03])
    >>> est.observe([6.0, 6.0], [0.05, 0.05])
    >>> d, p = est.estimate(); float(d[0]), float(p[0])
    (5.0, 0.04)
    """

    def __init__(self, net: Network, options: LinkStateOptions | None = None):
        self.net = net
        self.options = options or LinkStateOptions()
        self._delay: deque[np.ndarray] = deque(maxlen=self.options.sma_window)
        self._loss: deque[np.ndarray] = deque(maxlen=self.options.sma_window)

    @property
    def measured(self) -> bool:
        """Whether any sample has been observed."""
        return bool(self._delay)

    def observe(self, delay_ms: Sequence[float], loss: Sequence[float]) -> None:
        """Add one sample per arc (arrays of length ``net.m``).

        Raises
        ------
        ValueError
            On a wrong length, a negative delay or a loss outside [0, 1).
        """
        d = np.asarray(delay_ms, dtype=float)
        p = np.asarray(loss, dtype=float)
        if d.shape != (self.net.m,) or p.shape != (self.net.m,):
            raise ValueError(f"expected {self.net.m} samples per array")
        if (d < 0).any() or not np.isfinite(d).all():
            raise ValueError("delay samples must be finite and >= 0")
        if ((p < 0) | (p >= 1)).any():
            raise ValueError("loss samples must be in [0, 1)")
        self._delay.append(d)
        self._loss.append(p)

    def estimate(self) -> tuple[np.ndarray, np.ndarray]:
        """SMA of the last ``sma_window`` samples per arc (quantised if asked).

        Raises
        ------
        LookupError
            Before the first sample.
        """
        if not self._delay:
            raise LookupError("no link-state sample observed yet")
        d = np.mean(np.stack(self._delay), axis=0)
        p = np.mean(np.stack(self._loss), axis=0)
        if self.options.granularity:
            d = np.asarray(quantize_delay_ms(d, self.options.delay_step_ms))
            p = np.asarray(quantize_loss(p, self.options.loss_step))
        return d, p

    def routing_metric(self, requested: str) -> str:
        """``requested``, or ``"hop"`` until a measurement exists (thesis §3.5.1)."""
        return requested if self.measured else "hop"

    def network(self) -> Network:
        """The topology with the estimated delay and loss (nominal values before any sample)."""
        if not self.measured:
            return self.net
        d, p = self.estimate()
        return self.net.with_arrays(delay_ms=d, loss=p)


def path_on(net: Network, nodes: Sequence[str], metric: str) -> Path | None:
    """Re-evaluate a route (node ids) on ``net``; ``None`` if a hop no longer exists."""
    try:
        arcs = net.arcs_of_path(list(nodes))
    except (ValueError, UnknownNode):
        return None
    d = float(sum(net.delay_ms[a] for a in arcs))
    q = float(sum(net.q[a] for a in arcs))
    return Path(tuple(nodes), tuple(arcs), len(arcs), d, -math.expm1(-q), metric_cost(metric, len(arcs), d, q))


def select_with_hysteresis(
    net: Network,
    metric: str,
    current: Sequence[str] | None,
    best: Path,
    dz: float = 0.0,
    dz_rel: float = 0.0,
) -> tuple[Path, bool]:
    """Keep the current route unless ``best`` improves on it by more than Δz (thesis §3.5.3).

    Parameters
    ----------
    net : Network
        Current link state.
    metric : str
        Metric of ``best``.
    current : sequence of str or None
        Node ids of the route in use (``None``: no route yet).
    best : Path
        Best route under the current link state.
    dz, dz_rel : float
        Absolute threshold (cost units) and relative threshold (fraction of the
        current cost); the larger applies.

    Returns
    -------
    (Path, bool)
        The route to use and whether it changed.
    """
    if current is None:
        return best, True
    cur = path_on(net, current, metric)
    if cur is None:
        return best, True
    threshold = max(dz, dz_rel * cur.cost)
    if best.cost < cur.cost - threshold:
        return best, tuple(best.nodes) != tuple(cur.nodes)
    return cur, False

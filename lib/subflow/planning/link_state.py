"""Measured link state for routing: moving averages, granularity, hysteresis (TCPBP thesis §3.4, §3.5, §4.1).

:class:`LinkStateEstimator` keeps, per arc, the last ``sma_window`` samples of
measured delay and loss and presents their simple moving average (Eq. 2.4),
optionally quantised to the thesis's granularity (delay to 0.1 ms, loss to
multiples of 0.01 %); until the first measurement, routing falls back to
``hop`` (§3.5.1). :func:`select_with_hysteresis` keeps the current route unless
the best one is better by more than Δz (§3.5.3). Route costs are those of
:mod:`subflow.planning.shortest_paths`.

References
----------
.. [1] L. H. M. Rosa, "TCPBP: TCP Best Path", thesis, Eq. 2.4, §3.4, §3.5, §4.1.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from subflow.errors import UnknownNode
from subflow.planning.network import Network
from subflow.planning.shortest_paths import Path, metric_cost

__all__ = [
    "LinkStateEstimator",
    "LinkStateOptions",
    "path_on",
    "quantize_delay_ms",
    "quantize_loss",
    "select_with_hysteresis",
]


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

"""Registry of transport strategies that a comparison can ask for."""

from __future__ import annotations

from dataclasses import dataclass

from subflow.errors import UnknownStrategy


@dataclass(frozen=True)
class Strategy:
    """A named transport strategy.

    Attributes
    ----------
    name : str
        Identifier used in APIs (``sptcp``, ``mptcp``).
    multipath : bool
        Whether a connection may use several subflows at once.
    routing : str
        How paths are chosen (``hop``: minimum hop count).
    description : str
        One-sentence explanation shown to planners.
    """

    name: str
    multipath: bool
    routing: str
    description: str


STRATEGIES: dict[str, Strategy] = {
    "sptcp": Strategy(
        name="sptcp",
        multipath=False,
        routing="hop",
        description=(
            "Single-path TCP (NewReno) on the minimum-hop route. At a handover the "
            "connection is cut for the association delay and resumes only when its "
            "retransmission timer fires (RFC 6298 exponential backoff)."
        ),
    ),
    "mptcp": Strategy(
        name="mptcp",
        multipath=True,
        routing="hop",
        description=(
            "Multipath TCP (RFC 8684): one subflow per interface of the multi-homed "
            "end, LIA coupled congestion control (RFC 6356) and the LowRTT scheduler; "
            "a handover only adds or removes a subflow."
        ),
    ),
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

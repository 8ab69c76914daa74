"""One shared medium, many contenders: the water level of a time-shared channel.

Both the 802.11 cells (:func:`subflow.runplan.air_cells.dcf_shares_mbps`: equal transmission opportunities,
so saturated stations get equal *throughput*) and the shared SATCOM beams
(:func:`subflow.runplan.beams.equal_airtime_shares`: a TDM carrier, so saturated terminals get equal *time*)
divide one unit of channel time among contenders that may ask for less than a fair share. Contender j needs
``x_j`` of the channel's time for its demand; at level ``L`` it may use ``L · w_j`` (``w_j = 1``: equal time;
``w_j = 1/g_j``: equal throughput ``L``). The level solves

    Σ_j min(x_j, L · w_j) = 1

(max-min fairness by water-filling: Bertsekas & Gallager, *Data Networks*, 2nd ed., §6.5.2).

References
----------
.. [1] D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992, §6.5.2.
"""

from __future__ import annotations


def water_level(needs: list[float], weights: list[float]) -> float | None:
    """The level ``L`` with Σ_j min(needs[j], L · weights[j]) = 1, or None when every need fits (Σ needs ≤ 1).

    Parameters
    ----------
    needs : list of float
        Each contender's time for its demand, in channel-seconds per second, > 0 (``math.inf``: saturated).
    weights : list of float
        Each contender's time per unit of level, > 0, as many as ``needs``.

    Returns
    -------
    float or None
        The level (a contender with ``needs[j] ≥ L · weights[j]`` gets ``L · weights[j]`` of the time).
    """
    if sum(needs) <= 1.0:
        return None
    used, weight, level = 0.0, sum(weights), 0.0
    for j in sorted(range(len(needs)), key=lambda j: needs[j] / weights[j]):
        level = (1.0 - used) / weight
        if needs[j] >= level * weights[j]:
            break
        used += needs[j]
        weight -= weights[j]
    return level


__all__ = ["water_level"]

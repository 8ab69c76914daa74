"""SATCOM link budgets: Es/N0, MODCOD and capacity of each SATCOM link at every time step.

A SATCOM link (:mod:`subflow.space.satcom`) with a ``budget`` (:class:`~subflow.scenario.document.SatcomBudget`)
to a satellite with a ``payload`` (:class:`~subflow.scenario.document.SatellitePayload`) gets, at every
``satcom.sample_s``, in each direction (uplink: terminal → satellite; downlink: satellite → terminal):

* free-space loss ``L = 20 log10(4π d / λ)`` from the slant range ``d`` the orbit gives (ITU-R P.525-4 §2.1);
* atmospheric attenuation at the terminal (ITU-R P.618-13 §2.5: ``A = A_G + √((A_R + A_C)² + A_S²)``):
  gases (P.676-12), clouds (P.840-7), rain (P.618-13 §2.2.1.1 with the rain rate of P.837-7 at the
  terminal, or a scripted rain rate or attenuation) and scintillation (P.618-13 §2.4), all through the
  ``itur`` package (0.4.0; its defaults are these versions), at the budget's ``exceedance_pct``;
* ``C/N0 = EIRP − L − A − L_pointing − L_polarisation + G/T − k`` (dB·Hz), ``k = −228.6`` dBW/K/Hz
  (Boltzmann's constant, 10 log10(1.380649e-23));
* ``Es/N0 = C/N0 − 10 log10(Rs)`` (noise bandwidth = symbol rate ``Rs``); a bent-pipe carrier adds the noise
  of both its legs: ``1/(C/N)_total = 1/(C/N)_up + 1/(C/N)_down`` (linear ratios);
* the MODCOD (:mod:`subflow.scenario.modcod`: ETSI EN 302 307-1 Table 13, EN 302 307-2 Table 20a): with ACM
  the most efficient one whose required Es/N0 + ``margin_db`` is met, with CCM the fixed one while it
  closes; capacity = ``Rs × efficiency`` (Mbit/s), none (the link is down) when no MODCOD closes.

The satellite EIRP is per carrier (output back-off included) and the transponder's gain is not
modelled: a bent-pipe downlink's EIRP does not follow the uplink's fade.

References
----------
.. [1] ITU-R P.618-13 (2017), P.676-12 (2019), P.837-7 (2017), P.838-3 (2005), P.840-7 (2017), P.525-4.
.. [2] ETSI EN 302 307-1 V1.4.1 (2014), Table 13; EN 302 307-2 V1.1.1 (2014), Table 20a.
.. [3] G. Maral, M. Bousquet, "Satellite Communications Systems", 5th ed., Wiley 2009, §5.5-5.7.
.. [4] D. Roddy, "Satellite Communications", 4th ed., McGraw-Hill 2006, §12.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from subflow.scenario.document import SatcomBudget, SatelliteNode, Scenario
from subflow.scenario.modcod import MODCODS, Modcod, modcod_named
from subflow.space.satcom import SPEED_OF_LIGHT_KM_S, SatcomLink, SatcomTimeline

__all__ = [
    "BOLTZMANN_DBW_K_HZ",
    "LegBudget",
    "LinkBudgetSeries",
    "atmospheric_attenuation_db",
    "beam_symbol_rates_msps",
    "capacity_mbps",
    "carrier_to_noise_density_dbhz",
    "combine_cn_db",
    "es_n0_db",
    "free_space_loss_db",
    "leg_budget",
    "link_budgets",
    "rain_attenuation_db",
    "scale_rain_attenuation_db",
    "select_modcod",
]

#: Boltzmann's constant, dBW/K/Hz (10 log10(1.380649e-23) = −228.599...)
BOLTZMANN_DBW_K_HZ = -228.6
#: elevations below this are clamped for the atmospheric models (the link is below any usable mask)
_MIN_ELEVATION_DEG = 5.0
#: elevations are rounded to this step before the atmospheric models (they are evaluated once per value)
_ELEVATION_STEP_DEG = 0.1


def free_space_loss_db(distance_km, frequency_ghz):
    """Free-space loss ``20 log10(4π d / λ)``, dB (ITU-R P.525-4 §2.1); ``distance_km`` in km (scalar or
    array), ``frequency_ghz`` in GHz."""
    wavelength_km = SPEED_OF_LIGHT_KM_S / (np.asarray(frequency_ghz, dtype=float) * 1e9)
    return 20.0 * np.log10(4.0 * math.pi * np.asarray(distance_km, dtype=float) / wavelength_km)


def carrier_to_noise_density_dbhz(eirp_dbw, path_loss_db, g_t_dbk, other_losses_db=0.0):
    """``C/N0 = EIRP − L_path − L_other + G/T − k``, dB·Hz (k = −228.6 dBW/K/Hz); inputs in dBW, dB, dB/K, dB."""
    return (np.asarray(eirp_dbw, dtype=float) - path_loss_db - other_losses_db + g_t_dbk
            - BOLTZMANN_DBW_K_HZ)


def combine_cn_db(*cn_db):
    """The C/N (or C/N0) of legs in series, dB: ``−10 log10(Σ 10^(−x/10))`` (a bent-pipe transponder adds
    the noise of its uplink and downlink)."""
    total = sum(10.0 ** (-np.asarray(x, dtype=float) / 10.0) for x in cn_db)
    return -10.0 * np.log10(total)


def es_n0_db(cn0_dbhz, symbol_rate_msps: float):
    """``Es/N0 = C/N0 − 10 log10(Rs)``, dB, with ``Rs`` in Msym/s (the noise bandwidth is the symbol rate)."""
    return np.asarray(cn0_dbhz, dtype=float) - 10.0 * math.log10(symbol_rate_msps * 1e6)


def select_modcod(es_n0, standard: str, margin_db: float, fixed: str | None = None) -> list[Modcod | None]:
    """The MODCOD of each Es/N0 (dB): with ``fixed`` None (ACM) the most efficient of ``standard``'s table
    whose required Es/N0 + ``margin_db`` is at most the value; with ``fixed`` (CCM) that MODCOD when it
    closes. ``None`` where none closes (NaN included).

    Raises
    ------
    KeyError
        If ``fixed`` is not a MODCOD of ``standard``.
    """
    values = np.atleast_1d(np.asarray(es_n0, dtype=float))
    table = [modcod_named(standard, fixed)] if fixed is not None else sorted(MODCODS[standard],
                                                                             key=lambda m: m.efficiency)
    need = np.array([m.es_n0_db + margin_db for m in table])
    out: list[Modcod | None] = []
    for v in values:
        ok = np.flatnonzero(need <= v) if math.isfinite(v) else []
        out.append(max((table[k] for k in ok), key=lambda m: m.efficiency) if len(ok) else None)
    return out


def capacity_mbps(es_n0, symbol_rate_msps: float, standard: str, margin_db: float,
                  fixed: str | None = None) -> np.ndarray:
    """Capacity of a carrier at each Es/N0 (dB), Mbit/s: ``Rs × efficiency`` of :func:`select_modcod`'s
    MODCOD, 0 where none closes. Never negative or NaN; non-decreasing in Es/N0."""
    return np.array([0.0 if m is None else symbol_rate_msps * m.efficiency
                     for m in select_modcod(es_n0, standard, margin_db, fixed)])


#: ``itur`` loads its ITU-R data sets into shared dicts on first use without a lock (a second thread then finds
#: a half-filled table: ``KeyError``); a comparison runs its strategies' plans in threads, so every call into it
#: holds this lock.
_ITUR_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def _itur():
    import itur

    return itur


def rain_attenuation_db(lat_deg: float, lon_deg: float, frequency_ghz: float, elevation_deg, p_pct: float,
                        tau_deg: float = 45.0, rain_rate_001_mm_h: float | None = None) -> np.ndarray:
    """Rain attenuation exceeded ``p_pct`` % of an average year on a slant path, dB (ITU-R P.618-13
    §2.2.1.1 by ``itur``): the rain rate exceeded 0.01 % of the time from ITU-R P.837-7 at the terminal, or
    ``rain_rate_001_mm_h``; with ``p_pct = 0.01`` and a rain rate ``R``, the attenuation of rain falling at
    ``R`` over the path. ``tau_deg``: polarisation tilt (45: circular); station height from ITU-R P.1511."""
    m = _itur().models.itu618
    if rain_rate_001_mm_h is not None and rain_rate_001_mm_h <= 0:
        return np.zeros_like(np.atleast_1d(np.asarray(elevation_deg, dtype=float)))
    with _ITUR_LOCK:
        a = m.rain_attenuation(lat_deg, lon_deg, frequency_ghz, elevation_deg, p=p_pct, tau=tau_deg,
                               R001=rain_rate_001_mm_h)
    return np.atleast_1d(np.asarray(a.value, dtype=float))


def scale_rain_attenuation_db(a1_db, f1_ghz: float, f2_ghz: float):
    """Rain attenuation at ``f2_ghz`` from that at ``f1_ghz`` on the same path, dB (ITU-R P.618-13
    §2.2.1.3, long-term frequency scaling): ``A2 = A1 (φ2/φ1)^(1−H)``, ``φ(f) = f² / (1 + 10⁻⁴ f²)``,
    ``H = 1.12·10⁻³ (φ2/φ1)^0.5 (φ1 A1)^0.55``."""
    a1 = np.asarray(a1_db, dtype=float)
    phi1, phi2 = (f * f / (1.0 + 1e-4 * f * f) for f in (f1_ghz, f2_ghz))
    h = 1.12e-3 * (phi2 / phi1) ** 0.5 * (phi1 * a1) ** 0.55
    return a1 * (phi2 / phi1) ** (1.0 - h)


def _contributions(lat_deg: float, lon_deg: float, frequency_ghz: float, elevation_deg: np.ndarray, p_pct: float,
                   diameter_m: float, efficiency: float) -> tuple[np.ndarray, ...]:
    """Gaseous, cloud, rain and scintillation attenuations exceeded ``p_pct`` % of the time, dB, by ``itur``
    (elevations clamped to 5° at least)."""
    el = np.maximum(np.atleast_1d(np.asarray(elevation_deg, dtype=float)), _MIN_ELEVATION_DEG)
    with _ITUR_LOCK:
        ag, ac, ar, as_, _ = _itur().atmospheric_attenuation_slant_path(
            lat_deg, lon_deg, frequency_ghz, el, p_pct, diameter_m, eta=efficiency, return_contributions=True)
    return tuple(np.broadcast_to(np.asarray(x.value, dtype=float), el.shape) for x in (ag, ac, ar, as_))


def atmospheric_attenuation_db(lat_deg: float, lon_deg: float, frequency_ghz: float, elevation_deg, p_pct: float,
                               diameter_m: float, efficiency: float,
                               rain_db=None) -> np.ndarray:
    """Total atmospheric attenuation of a slant path, dB (ITU-R P.618-13 §2.5,
    ``A = A_G + √((A_R + A_C)² + A_S²)``): gases, clouds and scintillation exceeded ``p_pct`` % of the time
    by ``itur``; rain likewise, or ``rain_db`` (dB, one per elevation) when given.

    ``elevation_deg``: array (degrees, at least 5 — lower values are clamped).
    """
    ag, ac, ar, as_ = _contributions(lat_deg, lon_deg, frequency_ghz, elevation_deg, p_pct, diameter_m, efficiency)
    if rain_db is not None:
        ar = np.asarray(rain_db, dtype=float)
    return ag + np.sqrt((ar + ac) ** 2 + as_ ** 2)


def _steps_at(series: list[tuple[float, float]], t_s: np.ndarray) -> np.ndarray:
    """A ``[[t_s, value], ...]`` step series at times ``t_s`` (0 before its first step)."""
    times = np.array([p[0] for p in series])
    values = np.array([0.0] + [p[1] for p in series])
    return values[np.searchsorted(times, t_s, side="right")]


@dataclass
class LegBudget:
    """One terminal's legs at every sample: ``up_cn0_dbhz`` (terminal → satellite) and ``down_cn0_dbhz``
    (satellite → terminal), dB·Hz, with the atmospheric attenuations they include (dB)."""

    up_cn0_dbhz: np.ndarray
    down_cn0_dbhz: np.ndarray
    up_attenuation_db: np.ndarray
    down_attenuation_db: np.ndarray


def _attenuation(b: SatcomBudget, lk: SatcomLink, frequency_ghz: float, downlink: bool) -> np.ndarray:
    """Atmospheric attenuation of ``lk``'s path at ``frequency_ghz`` at every sample, dB: the models evaluated
    once per 0.1° of elevation (and per scripted rain rate), at the terminal's location at the middle of the
    run."""
    mid = len(lk.t_s) // 2
    lat, lon = float(lk.lat_deg[mid]), float(lk.lon_deg[mid])
    el = np.round(np.maximum(lk.elevation_deg, _MIN_ELEVATION_DEG) / _ELEVATION_STEP_DEG) * _ELEVATION_STEP_DEG
    levels, where = np.unique(el, return_inverse=True)
    ag, ac, ar, as_ = (x[where] for x in _contributions(lat, lon, frequency_ghz, levels, b.exceedance_pct,
                                                          b.antenna_diameter_m, b.antenna_efficiency))
    if b.rain_rate_mm_h is not None:
        rate = _steps_at(b.rain_rate_mm_h, lk.t_s)
        ar = np.zeros_like(el)
        for r in np.unique(rate):
            here = rate == r
            lv, back = np.unique(el[here], return_inverse=True)
            ar[here] = rain_attenuation_db(lat, lon, frequency_ghz, lv, 0.01, rain_rate_001_mm_h=float(r))[back]
    elif b.rain_attenuation_db is not None:
        ar = _steps_at(b.rain_attenuation_db, lk.t_s)
        if not downlink:
            ar = scale_rain_attenuation_db(ar, b.downlink_ghz, frequency_ghz)
    return ag + np.sqrt((ar + ac) ** 2 + as_ ** 2)


def leg_budget(b: SatcomBudget, payload, lk: SatcomLink) -> LegBudget:
    """C/N0 of a terminal's uplink and downlink at every sample of ``lk`` (see the module's formulas)."""
    range_km = lk.delay_ms / 1000.0 * SPEED_OF_LIGHT_KM_S
    losses = b.pointing_loss_db + b.polarisation_loss_db
    a_up = _attenuation(b, lk, b.uplink_ghz, downlink=False)
    a_down = _attenuation(b, lk, b.downlink_ghz, downlink=True)
    up = carrier_to_noise_density_dbhz(b.terminal_eirp_dbw, free_space_loss_db(range_km, b.uplink_ghz),
                                       payload.g_t_dbk, losses + a_up)
    down = carrier_to_noise_density_dbhz(payload.eirp_dbw, free_space_loss_db(range_km, b.downlink_ghz),
                                         b.terminal_g_t_dbk, losses + a_down)
    return LegBudget(up, down, a_up, a_down)


@dataclass
class LinkBudgetSeries:
    """A budgeted SATCOM link at every sample ``t_s``: the carrier's C/N0 (dB·Hz, both legs of a bent pipe
    combined), Es/N0 (dB), MODCOD (name or None), margin (Es/N0 above the MODCOD's required Es/N0, dB; NaN
    where none closes) and capacity (Mbit/s, 0: no MODCOD closes) of its ``up`` (terminal → satellite) and
    ``down`` (satellite → terminal) directions, and the terminal's legs."""

    link: str
    terminal: str
    satellite: str
    t_s: np.ndarray
    up_es_n0_db: np.ndarray
    down_es_n0_db: np.ndarray
    up_modcod: list[str | None]
    down_modcod: list[str | None]
    up_capacity_mbps: np.ndarray
    down_capacity_mbps: np.ndarray
    legs: LegBudget
    up_cn0_dbhz: np.ndarray
    down_cn0_dbhz: np.ndarray
    up_margin_db: np.ndarray
    down_margin_db: np.ndarray


def beam_symbol_rates_msps(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """``{link_id: (up_msps, down_msps)}`` of each member link of a shared beam (``satcom.beams``): the beam's
    return symbol rate (the link budget's own without one) and its forward symbol rate, Msym/s."""
    if scenario.satcom is None:
        return {}
    budgets = {link.id: link.budget for link in scenario.links if link.budget is not None}
    out: dict[str, tuple[float, float]] = {}
    for beam in scenario.satcom.beams:
        for lid in beam.links:
            if lid in budgets:
                up = beam.return_symbol_rate_msps or budgets[lid].symbol_rate_msps
                out[lid] = (up, beam.forward_symbol_rate_msps)
    return out


def link_budgets(scenario: Scenario, satcom: SatcomTimeline) -> dict[str, LinkBudgetSeries]:
    """Every budgeted SATCOM link of a validated scenario at every sample of ``satcom``, keyed by link id.

    A link whose budget names a ``gateway_link`` on a bent-pipe satellite combines its legs with the
    gateway's: up (return) = this terminal's uplink with the gateway's downlink, down (forward) = the gateway's
    uplink with this terminal's downlink. A member of a shared beam (``satcom.beams``) is evaluated at the
    beam's symbol rates (:func:`beam_symbol_rates_msps`): its capacities are what it would carry with the
    whole carrier, before the beam's time sharing (:mod:`subflow.runplan.beams`). Empty without budgets.
    """
    budgets = {link.id: link.budget for link in scenario.links if link.budget is not None}
    if not budgets:
        return {}
    payloads = {n.id: n.payload for n in scenario.nodes if isinstance(n, SatelliteNode)}
    rates = beam_symbol_rates_msps(scenario)
    legs = {lid: leg_budget(b, payloads[satcom.links[lid].satellite], satcom.links[lid])
            for lid, b in budgets.items() if lid in satcom.links}
    out: dict[str, LinkBudgetSeries] = {}
    for lid, leg in legs.items():
        b, lk = budgets[lid], satcom.links[lid]
        up, down = leg.up_cn0_dbhz, leg.down_cn0_dbhz
        if b.gateway_link is not None and b.gateway_link in legs:
            gw = legs[b.gateway_link]
            up, down = combine_cn_db(up, gw.down_cn0_dbhz), combine_cn_db(gw.up_cn0_dbhz, down)
        rs_up, rs_down = rates.get(lid, (b.symbol_rate_msps, b.symbol_rate_msps))
        up_es, down_es = es_n0_db(up, rs_up), es_n0_db(down, rs_down)
        up_m = select_modcod(up_es, b.standard, b.margin_db, b.modcod)
        down_m = select_modcod(down_es, b.standard, b.margin_db, b.modcod)
        out[lid] = LinkBudgetSeries(
            link=lid, terminal=lk.terminal, satellite=lk.satellite, t_s=lk.t_s,
            up_es_n0_db=up_es, down_es_n0_db=down_es,
            up_modcod=[m.name if m else None for m in up_m], down_modcod=[m.name if m else None for m in down_m],
            up_capacity_mbps=np.array([rs_up * m.efficiency if m else 0.0 for m in up_m]),
            down_capacity_mbps=np.array([rs_down * m.efficiency if m else 0.0 for m in down_m]),
            legs=leg, up_cn0_dbhz=up, down_cn0_dbhz=down,
            up_margin_db=np.array([e - m.es_n0_db if m else math.nan for e, m in zip(up_es, up_m)]),
            down_margin_db=np.array([e - m.es_n0_db if m else math.nan for e, m in zip(down_es, down_m)]))
    return out

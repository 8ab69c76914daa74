"""Radio from propagation: path loss, SNR, 802.11 MCS selection and the range of the lowest MCS.

A pure library module (no scenario I/O): every function takes numbers in the units its
parameter names carry (metres, MHz, dBm, dB, dBi) and returns numbers.

Link budget
-----------
The received power of a hop of slant range ``d`` is

    P_rx(d) = P_tx + G_tx + G_rx − PL(d)            [dBm]

with ``PL`` one of the path-loss models below, and its signal-to-noise ratio
``SNR = P_rx − N`` with ``N`` the noise floor (dBm) for a 20 MHz channel, raised by
``10·log10(width / 20 MHz)`` for wider channels.

MCS selection
-------------
Each PHY's modulation and coding schemes come with the standard's receiver minimum
input sensitivity ``S_k`` (the weakest signal at which a conforming receiver keeps the
packet error rate under 10 %). The standard derives those sensitivities for a noise
figure of 10 dB and an implementation margin of 5 dB, i.e. for the reference noise floor
``N_ref(w) = −174 dBm/Hz + 10·log10(w) + 10 dB`` (= −91.0 dBm at 20 MHz); the SNR an MCS
needs is therefore ``S_k(w) − N_ref(w)``. The selected MCS is the fastest whose needed
SNR the hop reaches. With the default noise floor (:data:`REFERENCE_NOISE_FLOOR_DBM`)
this picks exactly the standard's table by received power.

A second method, :func:`select_mcs_by_error_rate`, picks the fastest MCS whose packet error rate
under an OFDM error-rate model (:mod:`subflow.radio.error_rate`) stays at or below a target, at an SNR
taken over the thermal noise floor plus a receiver noise figure (7 dB by default, as ns-3). Two
settings of it are methods: ``"error_rate"`` bounds a soft-decision Viterbi decoder and keeps the
decoded bit error rate at or below :data:`DEFAULT_BER_TARGET` (10⁻⁶, the criterion of ns-3's
``IdealWifiManager``), i.e. a 1500-byte frame's PER at or below :data:`DEFAULT_PER_TARGET` (1.19 %);
``"nist"`` is ns-3's ``NistErrorRateModel`` (hard-decision bound) at :data:`NIST_PER_TARGET` (10 %)
for a 1500-byte frame. :func:`mcs_for_rx_power` selects between the methods (``"error_rate"``,
``"nist"`` or the conservative ``"min_sensitivity"``). A :class:`LinkBudget` carries its method
(``Scenario.radio.rate_selection`` sets it for every hop of a scenario): its MCS at a distance, the
range of each MCS and the range of the hop (where the slowest MCS fails) all use the same required
SNR, the standard's ``S_k − N_ref`` or the error-rate model's SNR at the target PER
(:func:`subflow.radio.error_rate.snr_threshold_db`).

The rate is the PHY data rate of one spatial stream with the 800 ns guard interval
(the air is then shared by the stations of an access point: the 802.11 performance
anomaly, :mod:`subflow.runplan.resolve`).

Path-loss models (as ns-3 and Mininet-WiFi offer them)
-------------------------------------------------------
``friis``        PL = 20·log10(4πd/λ) + L                              (free space)
``log_distance`` PL = PL(d0) + 10·n·log10(d/d0) for d > d0, PL(d0) below (PL(d0) defaults to Friis at d0)
``two_ray``      Friis up to the crossover d_c = 4π·h_t·h_r/λ, then PL = 40·log10(d) − 20·log10(h_t·h_r) + L

References
----------
.. [1] H. T. Friis, "A note on a simple transmission formula", Proc. IRE 34(5), 254–256, 1946.
.. [2] T. S. Rappaport, *Wireless Communications: Principles and Practice*, 2nd ed., 2002,
   §4.2 (Eq. 4.5, Friis), §4.6 (Eq. 4.50–4.52, two-ray ground), §4.9.1 (Eq. 4.68, log-distance).
.. [3] IEEE Std 802.11-2020, Table 17-18 (OFDM receiver minimum input sensitivity, clause 17),
   Table 19-23 (HT, clause 19), Table 21-25 (VHT, clause 21); data rates: Table 17-4,
   Tables 19-27/19-28 (HT MCS 0–7), Tables 21-30..21-37 (VHT, NSS = 1).
.. [4] ns-3 ``FriisPropagationLossModel``, ``LogDistancePropagationLossModel``,
   ``TwoRayGroundPropagationLossModel`` (src/propagation/model/propagation-loss-model.cc);
   Mininet-WiFi ``propagationModel`` (``friis``, ``logDistance``, ``twoRayGround``).
.. [5] G. Pei, T. R. Henderson, "Validation of OFDM error rate model in ns-3", 2010; ns-3
   ``NistErrorRateModel`` and ``IdealWifiManager`` (the error-rate method; :mod:`subflow.radio.error_rate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from subflow.radio.error_rate import (
    DEFAULT_NOISE_FIGURE_DB,
    Decoding,
    packet_error_rate,
    snr_threshold_db,
    thermal_noise_floor_dbm,
)

#: speed of light in vacuum, m/s
SPEED_OF_LIGHT_MPS = 299_792_458.0
#: the noise floor behind the standard's sensitivity tables for 20 MHz: thermal −174 dBm/Hz over
#: 20 MHz (−100.99 dBm) plus the 10 dB noise figure the standard assumes, dBm
REFERENCE_NOISE_FLOOR_DBM = -174.0 + 10.0 * math.log10(20e6) + 10.0

#: the 802.11 amendment of a radio (the letters of IEEE 802.11a/g/n/ac)
PhyStandard = Literal["a", "g", "n", "ac"]
PropagationModelName = Literal["friis", "log_distance", "two_ray"]
McsMethod = Literal["error_rate", "nist", "min_sensitivity"]
#: the frame the error-rate methods compute a packet error rate for, bytes
DEFAULT_PER_FRAME_BYTES = 1500
#: decoded bit error rate the ``"error_rate"`` method keeps an MCS under: ns-3 ``IdealWifiManager``'s
#: ``BerThreshold``
DEFAULT_BER_TARGET = 1e-6
#: the packet error rate of a :data:`DEFAULT_PER_FRAME_BYTES` frame at that bit error rate,
#: 1 − (1 − 10⁻⁶)^12000 ≈ 0.0119
DEFAULT_PER_TARGET = 1.0 - (1.0 - DEFAULT_BER_TARGET) ** (8 * DEFAULT_PER_FRAME_BYTES)
#: packet error rate the ``"nist"`` method keeps an MCS under (the standard's 10 % PER of its sensitivity
#: definition, IEEE 802.11-2020 §17.3.10.2)
NIST_PER_TARGET = 0.1
#: the error-rate model and target of each error-rate method
_ERROR_RATE_METHODS: dict[str, tuple[Decoding, float]] = {
    "error_rate": ("soft", DEFAULT_PER_TARGET),
    "nist": ("hard", NIST_PER_TARGET),
}


@dataclass(frozen=True)
class Mcs:
    """One modulation and coding scheme: its index, PHY rate (Mbit/s) and minimum sensitivity (dBm)."""

    index: int
    rate_mbps: float
    sensitivity_dbm: float


# IEEE 802.11-2020 Table 17-18 (OFDM, 20 MHz) with the data rates of Table 17-4
_OFDM = ((6.0, -82), (9.0, -81), (12.0, -79), (18.0, -77), (24.0, -74), (36.0, -70), (48.0, -66), (54.0, -65))
# HT (Table 19-23) and VHT (Table 21-25) sensitivities at 20 MHz, MCS 0..9; +3 dB per doubling of the width
_HT_VHT_SENS_20 = (-82, -79, -77, -74, -70, -66, -65, -64, -59, -57)
# PHY rates, one spatial stream, 800 ns GI, Mbit/s: HT MCS 0-7 and VHT MCS 0-9 by channel width (MHz);
# VHT MCS 9 is not valid at 20 MHz with one stream (Table 21-30)
_RATES = {
    20: (6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0, 78.0, None),
    40: (13.5, 27.0, 40.5, 54.0, 81.0, 108.0, 121.5, 135.0, 162.0, 180.0),
    80: (29.25, 58.5, 87.75, 117.0, 175.5, 234.0, 263.25, 292.5, 351.0, 390.0),
    160: (58.5, 117.0, 175.5, 234.0, 351.0, 468.0, 526.5, 585.0, 702.0, 780.0),
}
#: channel widths (MHz) each PHY allows
WIDTHS_MHZ: dict[str, tuple[int, ...]] = {"a": (20,), "g": (20,), "n": (20, 40), "ac": (20, 40, 80, 160)}


def mcs_table(phy: PhyStandard, channel_width_mhz: int = 20) -> list[Mcs]:
    """The MCS of ``phy`` at ``channel_width_mhz``, slowest first.

    Parameters
    ----------
    phy : {"a", "g", "n", "ac"}
        802.11a/g (OFDM, clause 17), n (HT, clause 19, MCS 0–7), ac (VHT, clause 21, MCS 0–9).
    channel_width_mhz : int
        20 for a/g; 20 or 40 for n; 20, 40, 80 or 160 for ac.

    Returns
    -------
    list of Mcs
        Index, PHY rate (one spatial stream, 800 ns GI) and minimum sensitivity, by increasing rate.

    Raises
    ------
    ValueError
        For an unknown PHY or a width the PHY does not have.

    References
    ----------
    .. [1] IEEE Std 802.11-2020, Tables 17-18, 19-23, 21-25 (sensitivities); 17-4, 19-27/28, 21-30..37 (rates).
    """
    if phy not in WIDTHS_MHZ:
        raise ValueError(f"unknown PHY {phy!r}; one of a, g, n, ac")
    if channel_width_mhz not in WIDTHS_MHZ[phy]:
        raise ValueError(f"802.11{phy} has no {channel_width_mhz} MHz channel (one of {WIDTHS_MHZ[phy]})")
    if phy in ("a", "g"):
        return [Mcs(k, r, float(s)) for k, (r, s) in enumerate(_OFDM)]
    doublings = int(round(math.log2(channel_width_mhz / 20)))
    last = 8 if phy == "n" else 10
    out = []
    for k in range(last):
        rate = _RATES[channel_width_mhz][k]
        if rate is not None:
            out.append(Mcs(k, rate, float(_HT_VHT_SENS_20[k] + 3 * doublings)))
    return out


def wavelength_m(frequency_mhz: float) -> float:
    """Wavelength λ = c / f, metres, of a carrier of ``frequency_mhz`` (> 0)."""
    if not frequency_mhz > 0:
        raise ValueError("frequency_mhz must be positive")
    return SPEED_OF_LIGHT_MPS / (frequency_mhz * 1e6)


def friis_loss_db(distance_m: float, frequency_mhz: float, system_loss_db: float = 0.0) -> float:
    """Free-space path loss 20·log10(4πd/λ) + L, dB (Friis [1]; Rappaport Eq. 4.5).

    Below the distance where it would be negative (d < λ/4π, the near field) the loss is 0 dB,
    as ns-3's Friis model returns the transmit power there.
    """
    lam = wavelength_m(frequency_mhz)
    d = max(distance_m, lam / (4 * math.pi))
    return 20.0 * math.log10(4 * math.pi * d / lam) + system_loss_db


def log_distance_loss_db(distance_m: float, exponent: float, reference_distance_m: float,
                         reference_loss_db: float) -> float:
    """Log-distance path loss PL(d0) + 10·n·log10(d/d0), dB; PL(d0) for d ≤ d0 (Rappaport Eq. 4.68, ns-3)."""
    if distance_m <= reference_distance_m:
        return reference_loss_db
    return reference_loss_db + 10.0 * exponent * math.log10(distance_m / reference_distance_m)


def two_ray_crossover_m(frequency_mhz: float, tx_height_m: float, rx_height_m: float) -> float:
    """Crossover distance d_c = 4π·h_t·h_r/λ, metres, beyond which the two-ray ground model applies."""
    return 4 * math.pi * tx_height_m * rx_height_m / wavelength_m(frequency_mhz)


def two_ray_loss_db(distance_m: float, frequency_mhz: float, tx_height_m: float, rx_height_m: float,
                    system_loss_db: float = 0.0) -> float:
    """Two-ray ground path loss, dB: Friis up to the crossover, 40·log10(d) − 20·log10(h_t·h_r) + L beyond
    (Rappaport Eq. 4.52; ns-3 ``TwoRayGroundPropagationLossModel``). Heights must be positive."""
    if not (tx_height_m > 0 and rx_height_m > 0):
        raise ValueError("two-ray antenna heights must be positive metres")
    if distance_m <= two_ray_crossover_m(frequency_mhz, tx_height_m, rx_height_m):
        return friis_loss_db(distance_m, frequency_mhz, system_loss_db)
    return 40.0 * math.log10(distance_m) - 20.0 * math.log10(tx_height_m * rx_height_m) + system_loss_db


@dataclass(frozen=True)
class PathLoss:
    """A path-loss model with its parameters; :meth:`loss_db` and its inverse :meth:`distance_m`.

    ``reference_loss_db`` None (log-distance) means Friis at ``reference_distance_m``.
    Heights are used by ``two_ray`` only.
    """

    model: PropagationModelName = "friis"
    frequency_mhz: float = 2412.0
    exponent: float = 3.0
    reference_distance_m: float = 1.0
    reference_loss_db: float | None = None
    system_loss_db: float = 0.0
    tx_height_m: float = 1.0
    rx_height_m: float = 1.0

    def _ref_db(self) -> float:
        if self.reference_loss_db is not None:
            return self.reference_loss_db
        return friis_loss_db(self.reference_distance_m, self.frequency_mhz, self.system_loss_db)

    def loss_db(self, distance_m: float) -> float:
        """Path loss at ``distance_m`` (slant range, metres), dB; non-decreasing in the distance."""
        if self.model == "friis":
            return friis_loss_db(distance_m, self.frequency_mhz, self.system_loss_db)
        if self.model == "log_distance":
            return log_distance_loss_db(distance_m, self.exponent, self.reference_distance_m, self._ref_db())
        return two_ray_loss_db(distance_m, self.frequency_mhz, self.tx_height_m, self.rx_height_m,
                               self.system_loss_db)

    def distance_m(self, loss_db: float) -> float:
        """The largest distance (metres) whose path loss does not exceed ``loss_db``; 0 if even 0 m exceeds it.

        Closed-form inverse of :meth:`loss_db` (each model is a monotone, piecewise logarithmic law).
        """
        lam = wavelength_m(self.frequency_mhz)
        if self.model == "log_distance":
            ref = self._ref_db()
            if loss_db < ref:
                return 0.0
            return self.reference_distance_m * 10.0 ** ((loss_db - ref) / (10.0 * self.exponent))
        budget = loss_db - self.system_loss_db
        if budget < 0:
            return 0.0
        d_friis = lam / (4 * math.pi) * 10.0 ** (budget / 20.0)
        if self.model == "friis":
            return d_friis
        dc = two_ray_crossover_m(self.frequency_mhz, self.tx_height_m, self.rx_height_m)
        if d_friis <= dc:
            return d_friis
        return (10.0 ** (budget / 10.0) * (self.tx_height_m * self.rx_height_m) ** 2) ** 0.25


def noise_floor_dbm(noise_floor_20mhz_dbm: float, channel_width_mhz: int) -> float:
    """The noise floor of a ``channel_width_mhz`` channel from the 20 MHz one (+10·log10(w/20)), dBm."""
    return noise_floor_20mhz_dbm + 10.0 * math.log10(channel_width_mhz / 20.0)


def required_snr_db(mcs: Mcs, channel_width_mhz: int) -> float:
    """SNR (dB) an MCS needs: its sensitivity minus the standard's reference noise floor at that width."""
    return mcs.sensitivity_dbm - noise_floor_dbm(REFERENCE_NOISE_FLOOR_DBM, channel_width_mhz)


def select_mcs(snr_db: float, phy: PhyStandard, channel_width_mhz: int = 20) -> Mcs | None:
    """The fastest MCS of ``phy`` whose required SNR ``snr_db`` reaches; None below the slowest.

    Parameters
    ----------
    snr_db : float
        Signal-to-noise ratio of the hop, dB (received power minus the channel's noise floor).
    phy, channel_width_mhz
        As :func:`mcs_table`.

    Returns
    -------
    Mcs or None
    """
    best = None
    for m in mcs_table(phy, channel_width_mhz):
        if snr_db >= required_snr_db(m, channel_width_mhz) - 1e-9:
            best = m
    return best


def select_mcs_by_error_rate(snr_db: float, phy: PhyStandard, channel_width_mhz: int = 20, *,
                             per_target: float = DEFAULT_PER_TARGET,
                             frame_bytes: int = DEFAULT_PER_FRAME_BYTES,
                             decoding: Decoding = "soft") -> Mcs | None:
    """The fastest MCS of ``phy`` whose packet error rate at ``snr_db`` is at most ``per_target``.

    The PER of a ``frame_bytes`` frame comes from :func:`subflow.radio.error_rate.packet_error_rate` with
    ``decoding`` (``"soft"``: the soft-decision Viterbi bound; ``"hard"``: ns-3's ``NistErrorRateModel``),
    so the SNR must be taken over the thermal noise floor of the channel plus the receiver's noise figure
    (:func:`subflow.radio.error_rate.thermal_noise_floor_dbm`), not over :data:`REFERENCE_NOISE_FLOOR_DBM`.

    Parameters
    ----------
    snr_db : float
        SNR of the hop in the channel width, dB.
    phy, channel_width_mhz
        As :func:`mcs_table` (one spatial stream).
    per_target : float
        Largest acceptable packet error rate, in (0, 1); :data:`DEFAULT_PER_TARGET` (a decoded BER of
        10⁻⁶ over 1500 bytes) by default.
    frame_bytes : int
        Frame length the PER is computed for, bytes (> 0); 1500 by default.
    decoding : {"soft", "hard"}
        The decoder bound (:func:`subflow.radio.error_rate.coded_ber`).

    Returns
    -------
    Mcs or None
        None when even the slowest MCS misses the target.

    Raises
    ------
    ValueError
        For an unknown PHY, width or decoding, ``per_target`` outside (0, 1), a non-positive
        ``frame_bytes`` or a NaN SNR.
    """
    if not (isinstance(per_target, (int, float)) and 0.0 < per_target < 1.0):
        raise ValueError(f"per_target must be in (0, 1), got {per_target!r}")
    best = None
    for m in mcs_table(phy, channel_width_mhz):
        if packet_error_rate(phy, m.index, snr_db, frame_bytes, decoding) <= per_target:
            if best is None or m.rate_mbps > best.rate_mbps:
                best = m
    return best


def mcs_for_rx_power(rx_power_dbm: float, phy: PhyStandard, channel_width_mhz: int = 20, *,
                     method: McsMethod = "error_rate", noise_figure_db: float = DEFAULT_NOISE_FIGURE_DB,
                     per_target: float | None = None,
                     frame_bytes: int = DEFAULT_PER_FRAME_BYTES) -> Mcs | None:
    """The MCS a receiver at ``rx_power_dbm`` gets, by one of three methods.

    Parameters
    ----------
    rx_power_dbm : float
        Received power, dBm.
    phy, channel_width_mhz
        As :func:`mcs_table`.
    method : {"error_rate", "nist", "min_sensitivity"}
        ``"error_rate"`` and ``"nist"``: SNR over the thermal noise floor −174 dBm/Hz + 10·log10(width) +
        ``noise_figure_db``, then :func:`select_mcs_by_error_rate` with soft decisions at
        :data:`DEFAULT_PER_TARGET` or with ns-3's NIST model at :data:`NIST_PER_TARGET` (``per_target``,
        when given, replaces the method's target). ``"min_sensitivity"``: the standard's minimum
        sensitivities (:func:`select_mcs` over :data:`REFERENCE_NOISE_FLOOR_DBM`), the conservative choice.
    noise_figure_db, per_target, frame_bytes
        Used by the error-rate methods only.

    Returns
    -------
    Mcs or None

    Raises
    ------
    ValueError
        For an unknown ``method``, or as the selected method's function.
    """
    if method == "min_sensitivity":
        return select_mcs(rx_power_dbm - noise_floor_dbm(REFERENCE_NOISE_FLOOR_DBM, channel_width_mhz), phy,
                          channel_width_mhz)
    if method in _ERROR_RATE_METHODS:
        decoding, target = _ERROR_RATE_METHODS[method]
        snr_db = rx_power_dbm - thermal_noise_floor_dbm(channel_width_mhz, noise_figure_db)
        return select_mcs_by_error_rate(snr_db, phy, channel_width_mhz,
                                        per_target=target if per_target is None else per_target,
                                        frame_bytes=frame_bytes, decoding=decoding)
    raise ValueError(f"method must be 'error_rate', 'nist' or 'min_sensitivity', got {method!r}")


@lru_cache(maxsize=None)
def error_rate_snr_db(phy: PhyStandard, mcs_index: int, method: McsMethod = "error_rate") -> float:
    """SNR (dB, over the thermal noise floor plus noise figure) at which ``mcs_index`` of ``phy`` reaches the
    target PER of an error-rate ``method`` for a :data:`DEFAULT_PER_FRAME_BYTES` frame
    (:func:`subflow.radio.error_rate.snr_threshold_db`; cached: the same few MCS are asked for every hop of a
    scenario).

    Raises
    ------
    ValueError
        For a method other than ``"error_rate"`` or ``"nist"``, or as :func:`subflow.radio.error_rate.snr_threshold_db`.
    """
    if method not in _ERROR_RATE_METHODS:
        raise ValueError(f"method must be 'error_rate' or 'nist', got {method!r}")
    decoding, target = _ERROR_RATE_METHODS[method]
    return snr_threshold_db(phy, mcs_index, target, DEFAULT_PER_FRAME_BYTES, decoding)


def default_noise_floor_dbm(method: McsMethod) -> float:
    """The 20 MHz noise floor a method's SNR is taken over when the scenario names none, dBm.

    ``"min_sensitivity"``: :data:`REFERENCE_NOISE_FLOOR_DBM` (−90.99 dBm, the 10 dB noise figure behind the
    standard's sensitivities); ``"error_rate"`` and ``"nist"``: thermal noise plus ns-3's 7 dB noise figure
    (−93.99 dBm, :func:`subflow.radio.error_rate.thermal_noise_floor_dbm`).

    Raises
    ------
    ValueError
        For an unknown method.
    """
    if method == "min_sensitivity":
        return REFERENCE_NOISE_FLOOR_DBM
    if method in _ERROR_RATE_METHODS:
        return thermal_noise_floor_dbm(20, DEFAULT_NOISE_FIGURE_DB)
    raise ValueError(f"method must be 'error_rate', 'nist' or 'min_sensitivity', got {method!r}")


#: clear channel assessment threshold of an OFDM receiver for a valid preamble in the primary 20 MHz
#: channel, dBm (IEEE 802.11-2020 §17.3.10.6): the medium is busy when a frame arrives this strong
CCA_THRESHOLD_DBM = -82.0


@dataclass(frozen=True)
class LinkBudget:
    """One radio hop: transmit power and gains (dBm, dBi), PHY and width, path loss, noise floor and MCS method.

    ``noise_floor_dbm`` is the 20 MHz noise floor (widened by :func:`noise_floor_dbm` for wider channels).
    ``method`` is how an SNR maps to an MCS: ``"min_sensitivity"`` (the standard's sensitivities,
    :func:`select_mcs`; the default here, with :data:`REFERENCE_NOISE_FLOOR_DBM`), ``"error_rate"`` (soft
    decisions at :data:`DEFAULT_PER_TARGET`) or ``"nist"`` (the NIST model at :data:`NIST_PER_TARGET`), both
    for a :data:`DEFAULT_PER_FRAME_BYTES`-byte frame as :func:`select_mcs_by_error_rate`; pair those with
    ``default_noise_floor_dbm(method)``.
    """

    tx_power_dbm: float
    tx_gain_dbi: float
    rx_gain_dbi: float
    phy: PhyStandard
    channel_width_mhz: int
    path_loss: PathLoss
    noise_floor_dbm: float = REFERENCE_NOISE_FLOOR_DBM
    method: McsMethod = "min_sensitivity"

    def __post_init__(self) -> None:
        if self.method not in ("error_rate", "nist", "min_sensitivity"):
            raise ValueError(f"method must be 'error_rate', 'nist' or 'min_sensitivity', got {self.method!r}")

    def rx_power_dbm(self, distance_m: float) -> float:
        """Received power at ``distance_m``: P_tx + G_tx + G_rx − PL(d), dBm."""
        return self.tx_power_dbm + self.tx_gain_dbi + self.rx_gain_dbi - self.path_loss.loss_db(distance_m)

    def snr_db(self, distance_m: float) -> float:
        """SNR at ``distance_m``, dB."""
        return self.rx_power_dbm(distance_m) - noise_floor_dbm(self.noise_floor_dbm, self.channel_width_mhz)

    def required_snr_db(self, mcs: Mcs) -> float:
        """SNR (dB) ``mcs`` needs under this budget's method: ``S_k − N_ref(w)`` (min_sensitivity) or the
        error-rate model's SNR at the method's target PER (error_rate, nist: :func:`error_rate_snr_db`)."""
        if self.method == "min_sensitivity":
            return required_snr_db(mcs, self.channel_width_mhz)
        return error_rate_snr_db(self.phy, mcs.index, self.method)

    def mcs_at(self, distance_m: float) -> Mcs | None:
        """The MCS selected at ``distance_m``: the fastest whose required SNR the hop reaches (None: out of range)."""
        snr = self.snr_db(distance_m)
        best = None
        for m in mcs_table(self.phy, self.channel_width_mhz):
            if snr >= self.required_snr_db(m) - 1e-9 and (best is None or m.rate_mbps > best.rate_mbps):
                best = m
        return best

    def rate_mbps(self, distance_m: float) -> float:
        """PHY rate at ``distance_m``, Mbit/s; 0 where the slowest MCS fails."""
        m = self.mcs_at(distance_m)
        return 0.0 if m is None else m.rate_mbps

    def mcs_range_m(self, mcs: Mcs) -> float:
        """The largest distance (metres) at which the hop still reaches ``mcs``'s required SNR."""
        max_loss = (self.tx_power_dbm + self.tx_gain_dbi + self.rx_gain_dbi
                    - noise_floor_dbm(self.noise_floor_dbm, self.channel_width_mhz)
                    - self.required_snr_db(mcs))
        return self.path_loss.distance_m(max_loss)

    def carrier_sense_range_m(self, cca_dbm: float = CCA_THRESHOLD_DBM) -> float:
        """The largest distance (metres) at which the receiver's clear channel assessment still finds the
        medium busy: received power ≥ ``cca_dbm`` (IEEE 802.11-2020 §17.3.10.6, §19.3.19.5, §21.3.18.6:
        a valid OFDM preamble in the primary 20 MHz channel at −82 dBm)."""
        return self.path_loss.distance_m(self.tx_power_dbm + self.tx_gain_dbi + self.rx_gain_dbi - cca_dbm)

    def range_m(self) -> float:
        """Range of the hop: the distance (metres) beyond which every MCS fails (the farthest MCS range)."""
        return max(self.mcs_range_m(m) for m in mcs_table(self.phy, self.channel_width_mhz))

    def rate_steps(self) -> list[tuple[float, float]]:
        """The hop's rate against distance as steps ``(distance_m, rate_mbps)``, by increasing distance.

        The rate at distance d is the ``rate_mbps`` of the first step whose ``distance_m`` ≥ d (the
        :class:`subflow.scenario.document.RateStep` convention); an MCS that no distance reaches, or that a faster
        MCS reaches as far (under the error-rate models 9 Mbit/s, BPSK 3/4, needs more SNR than 12 Mbit/s,
        QPSK 1/2), is left out.
        """
        steps: list[tuple[float, float]] = []
        for m in reversed(mcs_table(self.phy, self.channel_width_mhz)):
            d = self.mcs_range_m(m)
            if d > 0 and (not steps or d > steps[-1][0]):
                steps.append((d, m.rate_mbps))
        return steps

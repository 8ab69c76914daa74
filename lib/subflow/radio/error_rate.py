"""OFDM error-rate models: bit and packet error rates of 802.11 OFDM/HT/VHT MCS in AWGN.

A pure library module. The SNR is the linear ratio of the received signal to the noise in the
channel width (thermal noise −174 dBm/Hz + 10·log10(width in Hz) + the receiver's noise figure),
as ns-3's ``InterferenceHelper`` hands it to its error-rate models.

Model
-----
Uncoded bit error rate of the subcarrier modulation at SNR γ (Gray-coded, AWGN):

    BPSK      P_b = ½·erfc(√γ)
    QPSK      P_b = ½·erfc(√(γ/2))
    M-QAM     P_b = (√M − 1)/(√M·log2 √M) · erfc(√(γ / (2(M − 1)/3)))      M = 16, 64, 256, 1024

The convolutional code (constraint length 7, Viterbi decoding) is bounded by the union bound on
the first-event error probability over the code's distance spectrum,

    P_e ≤ (1/(2b))·Σ_d c_d·D^d,    D = √(4·P_b·(1 − P_b))       (hard-decision Bhattacharyya bound)

with b = 1, 2, 3, 5 for the rates 1/2, 2/3, 3/4, 5/6 (b = 1 and the factor ½ for rate 1/2) and the
coefficients c_d of the code's (punctured) spectrum. This is the NIST model (``decoding="hard"``) [1]_.

Receivers decode with soft decisions. ``decoding="soft"`` bounds the soft-decision Viterbi decoder
instead: each coded bit is treated as a BPSK symbol at the SNR γ_b that gives the subcarrier
modulation's uncoded bit error rate, P_b = ½·erfc(√γ_b) (bit-interleaved coded modulation with Gray
labelling seen as a binary channel [4]_), and a path at Hamming distance d is chosen in error with
probability Q(√(2·d·γ_b)) = ½·erfc(√(d·γ_b)), so

    P_e ≤ (1/(2b))·Σ_d c_d·½·erfc(√(d·γ_b))                      (soft-decision union bound [2]_)

over the same spectrum: about 3 dB less SNR for the same P_e than the hard-decision bound, the
textbook gain of soft decisions at these error rates.

Either way a chunk of ``n`` bits succeeds with probability (1 − P_e)^n, so a frame of L bytes has
PER = 1 − (1 − P_e)^(8L).

References
----------
.. [1] G. Pei, T. R. Henderson, "Validation of OFDM error rate model in ns-3", Boeing Research &
   Technology, 2010 (https://www.nsnam.org/~pei/80211ofdm.pdf); ns-3 ``NistErrorRateModel``
   (src/wifi/model/nist-error-rate-model.cc).
.. [2] J. G. Proakis, *Digital Communications*, 4th ed., §8.2.2 (union bound of convolutional codes);
   rate-1/2, 2/3 and 3/4 distance spectra as tabulated in [1] (its tables 3.1.1, 3.1.2), rate 5/6 from
   D. Haccoun, G. Bégin, "High-rate punctured convolutional codes for Viterbi and sequential
   decoding", IEEE Trans. Commun. 37(11), 1989, Table V.
.. [3] IEEE Std 802.11-2020, Table 17-4 (OFDM rates' modulation and coding), Tables 19-27..19-38
   (HT MCS), Tables 21-30..21-37 (VHT MCS).
.. [4] G. Caire, G. Taricco, E. Biglieri, "Bit-interleaved coded modulation", IEEE Trans. Inf. Theory
   44(3), 927–946, 1998, §III (the BICM channel as binary input, Gray labelling).
"""

from __future__ import annotations

import math
from math import erfc
from typing import Literal

#: how the Viterbi decoder is bounded: ``"hard"`` (NIST model) or ``"soft"`` decisions
Decoding = Literal["hard", "soft"]

#: Boltzmann's constant × 290 K, thermal noise density, dBm/Hz
THERMAL_NOISE_DBM_PER_HZ = -174.0
#: noise figure of ns-3's YansWifiPhy receiver, dB
DEFAULT_NOISE_FIGURE_DB = 7.0

# modulation order and coding rate: 802.11a/g rates 6..54 Mbit/s (index 0-7), HT MCS 0-7, VHT MCS 0-9
_OFDM = ((2, (1, 2)), (2, (3, 4)), (4, (1, 2)), (4, (3, 4)), (16, (1, 2)), (16, (3, 4)), (64, (2, 3)), (64, (3, 4)))
_HT_VHT = ((2, (1, 2)), (4, (1, 2)), (4, (3, 4)), (16, (1, 2)), (16, (3, 4)), (64, (2, 3)), (64, (3, 4)),
           (64, (5, 6)), (256, (3, 4)), (256, (5, 6)))

# union-bound coefficients (c_d, d) of the 802.11 K = 7 code and its punctured rates
_SPECTRUM = {
    (1, 2): (0.5, ((36, 10), (211, 12), (1404, 14), (11633, 16), (77433, 18), (502690, 20), (3322763, 22),
                   (21292910, 24), (134365911, 26))),
    (2, 3): (1 / 4, ((3, 6), (70, 7), (285, 8), (1276, 9), (6160, 10), (27128, 11), (117019, 12), (498860, 13),
                     (2103891, 14), (8784123, 15))),
    (3, 4): (1 / 6, ((42, 5), (201, 6), (1492, 7), (10469, 8), (62935, 9), (379644, 10), (2253373, 11),
                     (13073811, 12), (75152755, 13), (428005675, 14))),
    (5, 6): (1 / 10, ((92, 4), (528, 5), (8694, 6), (79453, 7), (792114, 8), (7375573, 9), (67884974, 10),
                      (610875423, 11), (5427275376, 12), (47664215639, 13))),
}


def modulation_and_coding(phy: str, mcs: int) -> tuple[int, tuple[int, int]]:
    """(constellation size M, coding rate (k, n)) of an MCS.

    Parameters
    ----------
    phy : {"a", "g", "n", "ac"}
        a/g: index 0-7 for 6, 9, 12, 18, 24, 36, 48, 54 Mbit/s; n: HT MCS 0-7; ac: VHT MCS 0-9
        (per spatial stream).
    mcs : int

    Raises
    ------
    ValueError
        For an unknown PHY or an MCS index it does not have.
    """
    table = {"a": _OFDM, "g": _OFDM, "n": _HT_VHT[:8], "ac": _HT_VHT}.get(phy)
    if table is None:
        raise ValueError(f"phy must be one of a, g, n, ac; got {phy!r}")
    if isinstance(mcs, bool) or not isinstance(mcs, int) or not 0 <= mcs < len(table):
        raise ValueError(f"mcs: 802.11{phy} has MCS 0 to {len(table) - 1}, got {mcs!r}")
    return table[mcs]


def _check_snr(snr: float) -> None:
    if not (isinstance(snr, (int, float)) and not math.isnan(snr) and snr >= 0):
        raise ValueError(f"snr must be a non-negative linear ratio, got {snr!r}")


def uncoded_ber(modulation_order: int, snr: float) -> float:
    """Bit error rate of the uncoded subcarrier modulation at linear SNR ``snr`` (AWGN, Gray coding).

    Parameters
    ----------
    modulation_order : int
        M: 2 (BPSK), 4 (QPSK), 16, 64, 256 or 1024 (QAM).
    snr : float
        Linear signal-to-noise ratio, ≥ 0.

    Returns
    -------
    float
        In [0, ½].

    Raises
    ------
    ValueError
        For another ``modulation_order`` or a negative/NaN ``snr``.
    """
    _check_snr(snr)
    if modulation_order == 2:
        return 0.5 * erfc(math.sqrt(snr))
    if modulation_order == 4:
        return 0.5 * erfc(math.sqrt(snr / 2.0))
    if modulation_order in (16, 64, 256, 1024):
        root = math.isqrt(modulation_order)
        z = math.sqrt(snr / (2.0 * (modulation_order - 1) / 3.0))
        return (root - 1) / (root * math.log2(root)) * erfc(z)
    raise ValueError(f"modulation_order must be 2, 4, 16, 64, 256 or 1024; got {modulation_order!r}")


def coded_ber(ber: float, coding_rate: tuple[int, int], decoding: Decoding = "hard") -> float:
    """Union bound P_e on the decoded bit error rate of the 802.11 convolutional code, capped at 1.

    Parameters
    ----------
    ber : float
        Uncoded bit error rate in [0, ½].
    coding_rate : tuple of int
        (1, 2), (2, 3), (3, 4) or (5, 6).
    decoding : {"hard", "soft"}
        ``"hard"``: the Bhattacharyya bound with D = √(4·P_b·(1 − P_b)) (NIST model, Proakis §8.2.2);
        ``"soft"``: each coded bit as BPSK at γ_b with ½·erfc(√γ_b) = P_b, a distance-d path in error
        with probability ½·erfc(√(d·γ_b)) (Proakis §8.2.2, soft-decision decoding).

    Raises
    ------
    ValueError
        For another coding rate or decoding, or a BER outside [0, 1].
    """
    if coding_rate not in _SPECTRUM:
        raise ValueError(f"coding_rate must be one of {tuple(_SPECTRUM)}, got {coding_rate!r}")
    if not 0.0 <= ber <= 1.0:
        raise ValueError(f"ber must be in [0, 1], got {ber!r}")
    scale, terms = _SPECTRUM[coding_rate]
    if decoding == "hard":
        d = math.sqrt(4.0 * ber * (1.0 - ber))
        return min(1.0, scale * sum(c * d ** k for c, k in terms))
    if decoding == "soft":
        if ber >= 0.5:
            return 1.0
        if ber == 0.0:
            return 0.0
        from scipy.special import erfcinv

        gamma_b = float(erfcinv(2.0 * ber)) ** 2
        return min(1.0, scale * sum(c * 0.5 * erfc(math.sqrt(k * gamma_b)) for c, k in terms))
    raise ValueError(f"decoding must be 'hard' or 'soft', got {decoding!r}")


def chunk_success_rate(phy: str, mcs: int, snr: float, n_bits: int, decoding: Decoding = "hard") -> float:
    """Probability that ``n_bits`` at ``mcs`` all decode at linear SNR ``snr``: (1 − P_e)^n.

    Parameters
    ----------
    phy, mcs
        As :func:`modulation_and_coding`.
    snr : float
        Linear SNR in the channel width, ≥ 0.
    n_bits : int
        Bits in the chunk, ≥ 0.
    decoding : {"hard", "soft"}
        As :func:`coded_ber`; ``"hard"`` is ns-3's ``NistErrorRateModel``.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        For a bad PHY, MCS, SNR or a negative ``n_bits``.
    """
    if isinstance(n_bits, bool) or not isinstance(n_bits, int) or n_bits < 0:
        raise ValueError(f"n_bits must be a non-negative integer, got {n_bits!r}")
    m, rate = modulation_and_coding(phy, mcs)
    ber = uncoded_ber(m, snr)
    if ber == 0.0:
        return 1.0
    pe = coded_ber(ber, rate, decoding)
    return (1.0 - pe) ** n_bits


def packet_error_rate(phy: str, mcs: int, snr_db: float, frame_bytes: int, decoding: Decoding = "hard") -> float:
    """PER of a frame of ``frame_bytes`` at ``mcs`` and ``snr_db`` (dB): 1 − (1 − P_e)^(8·L).

    ``decoding`` as :func:`coded_ber`.

    Raises
    ------
    ValueError
        For a non-positive ``frame_bytes``, a NaN SNR, a bad PHY or MCS.
    """
    if isinstance(frame_bytes, bool) or not isinstance(frame_bytes, int) or frame_bytes < 1:
        raise ValueError(f"frame_bytes must be a positive integer, got {frame_bytes!r}")
    if not isinstance(snr_db, (int, float)) or math.isnan(snr_db):
        raise ValueError(f"snr_db must be a number of dB, got {snr_db!r}")
    snr = 10.0 ** (snr_db / 10.0) if snr_db > -300 else 0.0
    return 1.0 - chunk_success_rate(phy, mcs, snr, 8 * frame_bytes, decoding)


def snr_threshold_db(phy: str, mcs: int, per_target: float = 0.1, frame_bytes: int = 1500,
                     decoding: Decoding = "hard") -> float:
    """The SNR (dB) at which a frame of ``frame_bytes`` at ``mcs`` has PER ``per_target`` (``decoding`` as
    :func:`coded_ber`).

    The PER falls monotonically with the SNR; solved by Brent's method (:func:`scipy.optimize.brentq`)
    on [−20, 80] dB.

    Raises
    ------
    ValueError
        For ``per_target`` outside (0, 1), or as :func:`packet_error_rate`.
    """
    from scipy.optimize import brentq

    if not (isinstance(per_target, (int, float)) and 0.0 < per_target < 1.0):
        raise ValueError(f"per_target must be in (0, 1), got {per_target!r}")
    return float(brentq(lambda s: packet_error_rate(phy, mcs, s, frame_bytes, decoding) - per_target, -20.0, 80.0,
                        xtol=1e-9))


def thermal_noise_floor_dbm(channel_width_mhz: float, noise_figure_db: float = DEFAULT_NOISE_FIGURE_DB) -> float:
    """Noise floor of a receiver over ``channel_width_mhz``: −174 dBm/Hz + 10·log10(width in Hz) + NF, dBm.

    With the default 7 dB noise figure (ns-3 ``YansWifiPhy::RxNoiseFigure``) a 20 MHz channel has
    −93.99 dBm.

    Raises
    ------
    ValueError
        For a non-positive width or a negative/NaN noise figure.
    """
    if not (isinstance(channel_width_mhz, (int, float)) and channel_width_mhz > 0):
        raise ValueError(f"channel_width_mhz must be positive, got {channel_width_mhz!r}")
    if not (isinstance(noise_figure_db, (int, float)) and noise_figure_db >= 0):
        raise ValueError(f"noise_figure_db must be ≥ 0 dB, got {noise_figure_db!r}")
    return THERMAL_NOISE_DBM_PER_HZ + 10.0 * math.log10(channel_width_mhz * 1e6) + noise_figure_db

"""802.11 airtime: frame durations, DCF/EDCA channel access, A-MPDU aggregation and what they leave for data.

A pure library module (no scenario I/O). Every function takes numbers in the units its parameter names
carry (bytes, bits, seconds, Mbit/s) and returns numbers; times are seconds throughout.

What it models
--------------
One channel access of a station carries, in this order (IEEE 802.11-2020 10.3, 10.22.2)::

    AIFS (DIFS for DCF) + backoff + [RTS + SIFS + CTS + SIFS] + PPDU + SIFS + Ack (or BlockAck)

* **PPDU duration** (``TXTIME``): preamble and PHY header, then the data field in whole OFDM
  symbols carrying SERVICE (16 bits) + PSDU + tail (6 bits per BCC encoder)
  (clause 17.4.3 OFDM, 18.5.3 ERP with its 6 µs signal extension at 2.4 GHz, 19.4.3 HT-mixed,
  21.4.3 VHT; 15.3/16.3 DSSS/HR-DSSS for 802.11b, kept for the reference papers that use it).
* **MAC framing**: MAC header (24 bytes, 26 with QoS Control for n/ac), LLC/SNAP (8 bytes,
  RFC 1042 encapsulation of an IP packet), FCS (4 bytes) (9.2, 9.3.2.1).
* **Control responses**: Ack (14 bytes), compressed BlockAck (32 bytes), RTS (20), CTS (14), in a
  non-HT PPDU at the highest basic rate not above the data frame's (non-HT reference) rate,
  basic rates {6, 12, 24} Mbit/s for OFDM and {1, 2} Mbit/s for DSSS (10.6.6.5.2).
* **Backoff**: with no collision, the mean of the uniform draw in [0, CWmin] slots, CWmin·slot/2.
* **A-MPDU** (n/ac, 9.7, 10.12): each MPDU is preceded by a 4-byte delimiter and padded to a
  multiple of 4 bytes (all but the last); one A-MPDU per channel access, closed by a compressed
  BlockAck (implicit BlockAck request). Its size is limited by, whichever binds first:
  64 MPDUs (the compressed BlockAck bitmap), the maximum A-MPDU length (65,535 bytes HT,
  1,048,575 bytes VHT: exponents 3 and 7 of the HT/VHT Capabilities), and the PPDU duration
  (aPPDUMaxTime = 5.484 ms, or the access category's TXOP limit when that is non-zero).
* **TCP**: a bulk flow over one hop with delayed ACKs (one TCP ACK per two segments); each
  TCP ACK is carried by the receiver in an access of its own (aggregated with the other TCP ACKs
  of that A-MPDU's worth of data for n/ac).
* **Contention** between stations: Bianchi's saturation model (fixed point of τ and p), and the
  performance anomaly of DCF's equal transmission opportunities (Heusse et al.).

References
----------
.. [1] IEEE Std 802.11-2020: 10.3 (DCF), 10.3.2.3 (IFS), 10.22.2 (EDCA), 10.6.6.5.2 (control
   response rate), 9.2/9.3 (frame formats), 9.7 and 10.12 (A-MPDU); clauses 15-16 (DSSS),
   17 (OFDM: Table 17-4 rates, 17.4.3 TXTIME, the OFDM PHY characteristics), 18 (ERP), 19 (HT,
   19.4.3 TXTIME), 21 (VHT, 21.4.3 TXTIME).
.. [2] J. Jun, P. Peddabachagari, M. Sichitiu, "Theoretical maximum throughput of IEEE 802.11
   and its applications", IEEE NCA 2003, pp. 249-256.
.. [3] G. Bianchi, "Performance analysis of the IEEE 802.11 distributed coordination function",
   IEEE JSAC 18(3), 535-547, March 2000.
.. [4] M. Heusse, F. Rousseau, G. Berger-Sabbatel, A. Duda, "Performance anomaly of 802.11b",
   IEEE INFOCOM 2003, pp. 836-843.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.optimize import brentq

Standard = Literal["a", "b", "g", "n", "ac"]
AccessCategory = Literal["dcf", "BK", "BE", "VI", "VO"]

US = 1e-6

#: MAC frame sizes, bytes: Ack, CTS, RTS and the compressed BlockAck (IEEE 802.11-2020 9.3.1, control frames)
ACK_BYTES = 14
CTS_BYTES = 14
RTS_BYTES = 20
BLOCK_ACK_BYTES = 32
#: A-MPDU subframe delimiter, bytes (9.7.1)
MPDU_DELIMITER_BYTES = 4
#: aPPDUMaxTime of HT-mixed and VHT PPDUs, seconds (the HT and VHT PHY characteristics, clauses 19 and 21)
PPDU_MAX_TIME_S = 5.484e-3
#: largest A-MPDU an HT / VHT receiver may announce, bytes (Maximum A-MPDU Length Exponent 3 / 7)
MAX_AMPDU_BYTES = {"n": 65_535, "ac": 1_048_575}
#: MPDUs one compressed BlockAck acknowledges (its 64-bit bitmap)
BLOCK_ACK_WINDOW = 64
#: IPv4 + TCP headers with the timestamp option, bytes (the TCP ACK MSDU and the per-segment header)
TCP_IP_HEADER_BYTES = 52

# 802.11a/g (clause 17 Table 17-4): rate Mbit/s, modulation order, coding rate, data bits per symbol
_OFDM_MODES = ((6.0, 2, 1 / 2, 24), (9.0, 2, 3 / 4, 36), (12.0, 4, 1 / 2, 48), (18.0, 4, 3 / 4, 72),
               (24.0, 16, 1 / 2, 96), (36.0, 16, 3 / 4, 144), (48.0, 64, 2 / 3, 192), (54.0, 64, 3 / 4, 216))
# HT MCS 0-7 and VHT MCS 0-9 per spatial stream (Tables 19-27.., 21-30..): modulation order, coding rate
_HT_VHT_MODULATION = ((2, 1 / 2), (4, 1 / 2), (4, 3 / 4), (16, 1 / 2), (16, 3 / 4), (64, 2 / 3), (64, 3 / 4),
                      (64, 5 / 6), (256, 3 / 4), (256, 5 / 6))
# data subcarriers by channel width (19.3.2, 21.3.2)
_DATA_SUBCARRIERS = {20: 52, 40: 108, 80: 234, 160: 468}
# HT-LTF / VHT-LTF count by number of space-time streams (clauses 19.3.9, 21.3.8)
_HT_LTF = {1: 1, 2: 2, 3: 4, 4: 4}
_VHT_LTF = {1: 1, 2: 2, 3: 4, 4: 4, 5: 6, 6: 6, 7: 8, 8: 8}
# 802.11b (clauses 15, 16): rates Mbit/s
_DSSS_RATES = (1.0, 2.0, 5.5, 11.0)
# the non-HT reference rate of an HT/VHT modulation and coding (10.6.6.5.2)
_NON_HT_REFERENCE = {(2, 1 / 2): 6.0, (4, 1 / 2): 12.0, (4, 3 / 4): 18.0, (16, 1 / 2): 24.0, (16, 3 / 4): 36.0,
                     (64, 2 / 3): 48.0, (64, 3 / 4): 54.0, (64, 5 / 6): 54.0, (256, 3 / 4): 54.0, (256, 5 / 6): 54.0}
_OFDM_BASIC_RATES = (6.0, 12.0, 24.0)
_DSSS_BASIC_RATES = (1.0, 2.0)
# default EDCA parameter set (EDCA Parameter Set element, 9.4.2): AIFSN, CWmin and CWmax as functions of
# aCWmin, aCWmax, TXOP limit (s)
_EDCA = {
    "BK": (7, lambda c: c, lambda c, cmax: cmax, 0.0),
    "BE": (3, lambda c: c, lambda c, cmax: cmax, 0.0),
    "VI": (2, lambda c: (c + 1) // 2 - 1, lambda c, cmax: c, 3.008e-3),
    "VO": (2, lambda c: (c + 1) // 4 - 1, lambda c, cmax: (c + 1) // 2 - 1, 1.504e-3),
}


def _positive_int(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _non_negative(name: str, value: float) -> None:
    if not (isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")


@dataclass(frozen=True)
class Phy:
    """A PHY configuration: standard, channel width, spatial streams, guard interval, band, slot and preamble.

    Parameters
    ----------
    standard : {"a", "b", "g", "n", "ac"}
        802.11a (OFDM, clause 17), b (DSSS/HR-DSSS, clauses 15-16), g (ERP-OFDM, clause 18; its OFDM
        rates), n (HT-mixed, clause 19), ac (VHT, clause 21).
    channel_width_mhz : int
        20 for a/b/g; 20 or 40 for n; 20, 40, 80 or 160 for ac.
    spatial_streams : int
        1-4 for n, 1-8 for ac, 1 otherwise.
    guard_interval_ns : int
        800, or 400 (short GI) for n/ac.
    band_ghz : float or None
        2.4 or 5; None means 2.4 for b/g and 5 for a/n/ac. At 2.4 GHz OFDM PPDUs end with the 6 µs
        signal extension and SIFS is 10 µs.
    short_slot : bool
        802.11g only: 9 µs slot (a BSS of ERP stations only) instead of 20 µs.
    short_preamble : bool
        802.11b only: the 96 µs short PLCP preamble and header instead of 192 µs (not at 1 Mbit/s).

    Raises
    ------
    ValueError
        For an unknown standard, or a width, stream count, guard interval or band it does not have.
    """

    standard: Standard = "g"
    channel_width_mhz: int = 20
    spatial_streams: int = 1
    guard_interval_ns: int = 800
    band_ghz: float | None = None
    short_slot: bool = True
    short_preamble: bool = False

    def __post_init__(self) -> None:
        widths = {"a": (20,), "b": (20,), "g": (20,), "n": (20, 40), "ac": (20, 40, 80, 160)}
        if self.standard not in widths:
            raise ValueError(f"standard must be one of a, b, g, n, ac; got {self.standard!r}")
        if self.channel_width_mhz not in widths[self.standard]:
            raise ValueError(f"channel_width_mhz: 802.11{self.standard} has no {self.channel_width_mhz} MHz "
                             f"channel (one of {widths[self.standard]})")
        max_nss = {"n": 4, "ac": 8}.get(self.standard, 1)
        if isinstance(self.spatial_streams, bool) or self.spatial_streams not in range(1, max_nss + 1):
            raise ValueError(f"spatial_streams: 802.11{self.standard} carries 1 to {max_nss}, "
                             f"got {self.spatial_streams!r}")
        if self.guard_interval_ns not in ((800, 400) if self.standard in ("n", "ac") else (800,)):
            raise ValueError(f"guard_interval_ns: 800, or 400 for n/ac; got {self.guard_interval_ns!r}")
        allowed = {"a": (5.0,), "b": (2.4,), "g": (2.4,), "n": (2.4, 5.0), "ac": (5.0,)}[self.standard]
        if self.band_ghz is not None and self.band_ghz not in allowed:
            raise ValueError(f"band_ghz: 802.11{self.standard} works at {allowed} GHz, got {self.band_ghz!r}")

    # ---------------------------------------------------------------- timing constants
    @property
    def band(self) -> float:
        """Band in GHz (the default for the standard when ``band_ghz`` is None)."""
        if self.band_ghz is not None:
            return float(self.band_ghz)
        return 2.4 if self.standard in ("b", "g") else 5.0

    @property
    def slot_s(self) -> float:
        """aSlotTime, s: 9 µs OFDM/HT/VHT and short-slot ERP, 20 µs DSSS and long-slot ERP."""
        if self.standard == "b" or (self.standard == "g" and not self.short_slot):
            return 20 * US
        return 9 * US

    @property
    def sifs_s(self) -> float:
        """aSIFSTime, s: 16 µs at 5 GHz, 10 µs at 2.4 GHz."""
        return 10 * US if self.band == 2.4 else 16 * US

    @property
    def difs_s(self) -> float:
        """DIFS = SIFS + 2·slot, s (10.3.2.3.5)."""
        return self.sifs_s + 2 * self.slot_s

    @property
    def cw_min(self) -> int:
        """aCWmin, slots: 31 for DSSS, 15 for OFDM/ERP-OFDM/HT/VHT."""
        return 31 if self.standard == "b" else 15

    @property
    def cw_max(self) -> int:
        """aCWmax, slots: 1023."""
        return 1023

    @property
    def signal_extension_s(self) -> float:
        """The 6 µs of silence after every OFDM PPDU at 2.4 GHz (ERP and HT), s."""
        return 6 * US if (self.band == 2.4 and self.standard != "b") else 0.0

    @property
    def mcs_count(self) -> int:
        """Number of MCS indices (per spatial stream count for n/ac)."""
        return {"a": 8, "g": 8, "b": 4, "n": 8, "ac": 10}[self.standard]

    # ---------------------------------------------------------------- per-MCS quantities
    def _check_mcs(self, mcs: int) -> None:
        if isinstance(mcs, bool) or not isinstance(mcs, (int, np.integer)) or not 0 <= mcs < self.mcs_count:
            raise ValueError(f"mcs: 802.11{self.standard} has MCS 0 to {self.mcs_count - 1}, got {mcs!r}")

    def modulation(self, mcs: int) -> tuple[int, float]:
        """(constellation size M, coding rate R) of an OFDM/HT/VHT MCS (a/g: index 0-7 = 6-54 Mbit/s)."""
        self._check_mcs(mcs)
        if self.standard == "b":
            raise ValueError("mcs: 802.11b rates are DSSS/CCK, not OFDM modulation and coding")
        if self.standard in ("a", "g"):
            _, m, r, _ = _OFDM_MODES[mcs]
            return m, r
        return _HT_VHT_MODULATION[mcs]

    def data_bits_per_symbol(self, mcs: int) -> int:
        """N_DBPS: data bits per OFDM symbol (all spatial streams).

        Raises
        ------
        ValueError
            For DSSS, and for a VHT MCS the standard leaves out (N_DBPS or N_CBPS not divisible by the
            number of BCC encoders, e.g. MCS 9 at 20 MHz with 1 stream).
        """
        self._check_mcs(mcs)
        if self.standard == "b":
            raise ValueError("mcs: 802.11b has no OFDM symbols")
        if self.standard in ("a", "g"):
            return _OFDM_MODES[mcs][3]
        m, r = _HT_VHT_MODULATION[mcs]
        n_cbps = _DATA_SUBCARRIERS[self.channel_width_mhz] * int(math.log2(m)) * self.spatial_streams
        n_dbps = n_cbps * r
        n_es = self.bcc_encoders(mcs, n_dbps)
        if abs(n_dbps - round(n_dbps)) > 1e-9 or round(n_dbps) % n_es or n_cbps % n_es:
            raise ValueError(f"mcs: MCS {mcs} with {self.spatial_streams} stream(s) at {self.channel_width_mhz} MHz "
                             "is not a valid 802.11" + self.standard + " rate")
        return int(round(n_dbps))

    def bcc_encoders(self, mcs: int, n_dbps: float | None = None) -> int:
        """N_ES, the BCC encoders of an HT/VHT MCS (1 for a/g).

        One encoder per 300 Mbit/s (HT, 800 ns GI) or 600 Mbit/s (VHT, 400 ns GI) of data rate, which
        reproduces the N_ES column of the HT and VHT MCS tables; it only sets the tail bits (6 per encoder).
        """
        if self.standard not in ("n", "ac"):
            return 1
        if n_dbps is None:
            n_dbps = self.data_bits_per_symbol(mcs)
        per_encoder = 1200 if self.standard == "n" else 2160
        return max(1, math.ceil(n_dbps / per_encoder - 1e-9))

    @property
    def symbol_s(self) -> float:
        """OFDM symbol duration, s: 4 µs, 3.6 µs with the 400 ns guard interval."""
        return 3.6 * US if self.guard_interval_ns == 400 else 4 * US

    def rate_mbps(self, mcs: int) -> float:
        """PHY data rate of ``mcs``, Mbit/s (all spatial streams, this guard interval)."""
        self._check_mcs(mcs)
        if self.standard == "b":
            return _DSSS_RATES[mcs]
        return self.data_bits_per_symbol(mcs) / (self.symbol_s / US)

    def non_ht_reference_rate_mbps(self, mcs: int) -> float:
        """The non-HT rate a control response to ``mcs`` is chosen against (10.6.6.5.2), Mbit/s."""
        if self.standard in ("a", "g", "b"):
            return self.rate_mbps(mcs)
        return _NON_HT_REFERENCE[self.modulation(mcs)]

    def control_rate_mbps(self, mcs: int) -> float:
        """Rate of the Ack/BlockAck/CTS answering a frame at ``mcs``: the highest basic rate not above its
        (non-HT reference) rate; basic rates {6, 12, 24} Mbit/s (OFDM) or {1, 2} Mbit/s (DSSS)."""
        ref = self.non_ht_reference_rate_mbps(mcs)
        basic = _DSSS_BASIC_RATES if self.standard == "b" else _OFDM_BASIC_RATES
        return max(r for r in basic if r <= ref + 1e-9) if ref >= basic[0] else basic[0]

    # ---------------------------------------------------------------- durations
    def ppdu_duration_s(self, mcs: int, psdu_bytes: int) -> float:
        """TXTIME of a PPDU carrying ``psdu_bytes`` at ``mcs``, s (signal extension included).

        Parameters
        ----------
        mcs : int
            MCS index (a/g: 0-7 for 6-54 Mbit/s; b: 0-3 for 1, 2, 5.5, 11 Mbit/s; n: 0-7; ac: 0-9), the
            same for every spatial stream.
        psdu_bytes : int
            PSDU length (an MPDU, or an A-MPDU with its delimiters and padding), bytes, ≥ 0.

        Returns
        -------
        float
            Seconds.

        Raises
        ------
        ValueError
            For a negative or non-integer ``psdu_bytes``, an MCS the PHY does not have.

        References
        ----------
        IEEE 802.11-2020 16.3.4 (HR-DSSS LENGTH), 17.4.3 (OFDM TXTIME), 18.5.3 (ERP), 19.4.3
        (HT-mixed TXTIME), 21.4.3 (VHT TXTIME).
        """
        if isinstance(psdu_bytes, bool) or not isinstance(psdu_bytes, (int, np.integer)) or psdu_bytes < 0:
            raise ValueError(f"psdu_bytes must be a non-negative integer, got {psdu_bytes!r}")
        self._check_mcs(mcs)
        if self.standard == "b":
            rate = _DSSS_RATES[mcs]
            short = self.short_preamble and mcs > 0
            preamble_us = 96 if short else 192
            return (preamble_us + math.ceil(8 * psdu_bytes / rate - 1e-9)) * US
        n_dbps = self.data_bits_per_symbol(mcs)
        n_es = self.bcc_encoders(mcs, n_dbps)
        n_sym = math.ceil((16 + 8 * psdu_bytes + 6 * n_es) / n_dbps)
        if self.standard in ("a", "g"):
            return 20 * US + n_sym * 4 * US + self.signal_extension_s
        data_us = 4 * math.ceil(n_sym * (self.symbol_s / US) / 4 - 1e-9)
        if self.standard == "n":
            preamble_us = 20 + 8 + 4 + 4 * _HT_LTF[self.spatial_streams]      # L-part, HT-SIG, HT-STF, HT-LTFs
        else:
            preamble_us = 20 + 8 + 4 + 4 * _VHT_LTF[self.spatial_streams] + 4  # ..., VHT-SIG-A/STF/LTFs, SIG-B
        return (preamble_us + data_us) * US + self.signal_extension_s

    def control_duration_s(self, frame_bytes: int, rate_mbps: float) -> float:
        """Duration of a control frame of ``frame_bytes`` in a non-HT PPDU at ``rate_mbps`` (a basic rate), s."""
        if self.standard == "b":
            mcs = _DSSS_RATES.index(rate_mbps) if rate_mbps in _DSSS_RATES else None
            if mcs is None:
                raise ValueError(f"rate_mbps: {rate_mbps} is not a DSSS rate {_DSSS_RATES}")
            return self.ppdu_duration_s(mcs, frame_bytes)
        rates = [m[0] for m in _OFDM_MODES]
        if rate_mbps not in rates:
            raise ValueError(f"rate_mbps: {rate_mbps} is not an OFDM rate {tuple(rates)}")
        n_dbps = _OFDM_MODES[rates.index(rate_mbps)][3]
        n_sym = math.ceil((16 + 8 * frame_bytes + 6) / n_dbps)
        return 20 * US + n_sym * 4 * US + self.signal_extension_s


@dataclass(frozen=True)
class MacFraming:
    """Bytes the MAC adds around an MSDU (an IP packet): header, LLC/SNAP, FCS.

    The defaults are a QoS data frame (24-byte header + 2-byte QoS Control) with RFC 1042 LLC/SNAP and
    the FCS; :func:`default_framing` gives the non-QoS header (24 bytes) for a/b/g.
    """

    header_bytes: int = 26
    llc_snap_bytes: int = 8
    fcs_bytes: int = 4

    def mpdu_bytes(self, msdu_bytes: int) -> int:
        """MPDU length carrying ``msdu_bytes`` (≥ 0), bytes."""
        if isinstance(msdu_bytes, bool) or not isinstance(msdu_bytes, (int, np.integer)) or msdu_bytes < 0:
            raise ValueError(f"msdu_bytes must be a non-negative integer, got {msdu_bytes!r}")
        return self.header_bytes + self.llc_snap_bytes + int(msdu_bytes) + self.fcs_bytes


def default_framing(phy: Phy) -> MacFraming:
    """Non-QoS data header (24 bytes) for a/b/g, QoS data header (26 bytes) for n/ac (A-MPDU needs QoS)."""
    return MacFraming(header_bytes=26 if phy.standard in ("n", "ac") else 24)


@dataclass(frozen=True)
class Access:
    """Channel access parameters: AIFS (DIFS for DCF), CWmin, CWmax (slots), slot, TXOP limit (0: one PPDU)."""

    aifs_s: float
    cw_min: int
    cw_max: int
    slot_s: float
    txop_limit_s: float = 0.0

    @property
    def mean_backoff_s(self) -> float:
        """Mean backoff with no collision, CWmin·slot/2, s (the draw is uniform in [0, CWmin] slots)."""
        return self.cw_min * self.slot_s / 2


def access_parameters(phy: Phy, access: AccessCategory | None = None) -> Access:
    """DCF (DIFS, aCWmin, aCWmax) or the default EDCA parameters of an access category.

    Parameters
    ----------
    phy : Phy
    access : {"dcf", "BK", "BE", "VI", "VO"} or None
        None: "dcf" for a/b/g, "BE" (best effort) for n/ac. AIFS = SIFS + AIFSN·slot.

    Raises
    ------
    ValueError
        For an unknown access category.

    References
    ----------
    IEEE 802.11-2020 10.3.2.3 (DIFS, AIFS), 10.22.2 (EDCA), 9.4.2 (EDCA Parameter Set element defaults).
    """
    if access is None:
        access = "BE" if phy.standard in ("n", "ac") else "dcf"
    if access == "dcf":
        return Access(phy.difs_s, phy.cw_min, phy.cw_max, phy.slot_s)
    if access not in _EDCA:
        raise ValueError(f"access must be one of dcf, BK, BE, VI, VO; got {access!r}")
    aifsn, cmin, cmax, txop = _EDCA[access]
    return Access(phy.sifs_s + aifsn * phy.slot_s, cmin(phy.cw_min), cmax(phy.cw_min, phy.cw_max), phy.slot_s,
                  txop)


def ampdu_bytes(mpdu_bytes: int, n_mpdus: int) -> int:
    """PSDU length of an A-MPDU of ``n_mpdus`` equal MPDUs: a 4-byte delimiter each, every subframe but
    the last padded to a multiple of 4 bytes (IEEE 802.11-2020 9.7.1). ``n_mpdus`` ≥ 1."""
    _positive_int("n_mpdus", n_mpdus)
    sub = MPDU_DELIMITER_BYTES + mpdu_bytes
    padded = sub + (-sub) % 4
    return (n_mpdus - 1) * padded + sub


def max_ampdu_mpdus(phy: Phy, mcs: int, mpdu_bytes: int, *, access: Access | None = None,
                    max_ampdu_bytes: int | None = None, max_mpdus: int = BLOCK_ACK_WINDOW) -> int:
    """The most MPDUs of ``mpdu_bytes`` one A-MPDU carries at ``mcs`` (1 for a/b/g).

    Limits, whichever binds first: ``max_mpdus`` (64, the compressed BlockAck window),
    ``max_ampdu_bytes`` (default: 65,535 bytes HT, 1,048,575 bytes VHT) and the PPDU duration
    (the TXOP limit of ``access`` when non-zero, else aPPDUMaxTime 5.484 ms). At least 1.
    """
    if phy.standard not in ("n", "ac"):
        return 1
    _positive_int("max_mpdus", max_mpdus)
    cap_bytes = MAX_AMPDU_BYTES[phy.standard] if max_ampdu_bytes is None else max_ampdu_bytes
    _positive_int("max_ampdu_bytes", cap_bytes)
    cap_s = PPDU_MAX_TIME_S
    if access is not None and access.txop_limit_s > 0:
        cap_s = min(cap_s, access.txop_limit_s)
    lo, hi = 1, max_mpdus
    if ampdu_bytes(mpdu_bytes, 1) > cap_bytes or phy.ppdu_duration_s(mcs, ampdu_bytes(mpdu_bytes, 1)) > cap_s:
        return 1
    while lo < hi:   # largest k with both limits met (both grow with k)
        mid = (lo + hi + 1) // 2
        size = ampdu_bytes(mpdu_bytes, mid)
        if size <= cap_bytes and phy.ppdu_duration_s(mcs, size) <= cap_s + 1e-12:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(frozen=True)
class Exchange:
    """One successful channel access, its parts in seconds and the MSDU payload it delivers (bits)."""

    aifs_s: float
    backoff_s: float
    protection_s: float
    data_s: float
    sifs_s: float
    ack_s: float
    payload_bits: int
    n_mpdus: int

    @property
    def total_s(self) -> float:
        """Channel time of the whole exchange, s."""
        return self.aifs_s + self.backoff_s + self.protection_s + self.data_s + self.sifs_s + self.ack_s


def exchange(phy: Phy, mcs: int, msdu_bytes: int, *, n_mpdus: int | None = None, rts_cts: bool = False,
             access: AccessCategory | None = None, framing: MacFraming | None = None,
             control_rate_mbps: float | None = None, include_backoff: bool = True) -> Exchange:
    """The airtime of one channel access delivering MSDUs of ``msdu_bytes`` at ``mcs``, with no collision.

    ``AIFS + mean backoff + [RTS + SIFS + CTS + SIFS] + PPDU + SIFS + Ack`` for a single MPDU;
    with ``n_mpdus`` > 1 (n/ac) the PPDU is an A-MPDU and the Ack a compressed BlockAck.

    Parameters
    ----------
    phy : Phy
    mcs : int
        MCS index of the data PPDU (see :meth:`Phy.ppdu_duration_s`).
    msdu_bytes : int
        MSDU (IP packet) length, bytes, ≥ 0.
    n_mpdus : int or None
        MPDUs in the A-MPDU; None: 1 for a/b/g, :func:`max_ampdu_mpdus` for n/ac.
    rts_cts : bool
        Protect the PPDU with RTS/CTS.
    access : {"dcf", "BK", "BE", "VI", "VO"} or None
        See :func:`access_parameters`.
    framing : MacFraming or None
        None: :func:`default_framing`.
    control_rate_mbps : float or None
        Rate of the Ack/BlockAck/RTS/CTS; None: :meth:`Phy.control_rate_mbps`.
    include_backoff : bool
        Count the mean backoff CWmin·slot/2 (False for models that count contention themselves).

    Returns
    -------
    Exchange

    Raises
    ------
    ValueError
        For a bad MCS, size or count, and for ``n_mpdus`` > 1 on a/b/g (no A-MPDU before HT).
    """
    framing = default_framing(phy) if framing is None else framing
    acc = access_parameters(phy, access)
    mpdu = framing.mpdu_bytes(msdu_bytes)
    if n_mpdus is None:
        n_mpdus = max_ampdu_mpdus(phy, mcs, mpdu, access=acc)
    _positive_int("n_mpdus", n_mpdus)
    if n_mpdus > 1 and phy.standard not in ("n", "ac"):
        raise ValueError(f"n_mpdus: 802.11{phy.standard} has no A-MPDU (n_mpdus must be 1)")
    psdu = ampdu_bytes(mpdu, n_mpdus) if phy.standard in ("n", "ac") and n_mpdus > 1 else mpdu
    ctrl = phy.control_rate_mbps(mcs) if control_rate_mbps is None else control_rate_mbps
    ack_bytes = BLOCK_ACK_BYTES if n_mpdus > 1 else ACK_BYTES
    protection = 0.0
    if rts_cts:
        protection = (phy.control_duration_s(RTS_BYTES, ctrl) + phy.control_duration_s(CTS_BYTES, ctrl)
                      + 2 * phy.sifs_s)
    return Exchange(aifs_s=acc.aifs_s, backoff_s=acc.mean_backoff_s if include_backoff else 0.0,
                    protection_s=protection, data_s=phy.ppdu_duration_s(mcs, psdu), sifs_s=phy.sifs_s,
                    ack_s=phy.control_duration_s(ack_bytes, ctrl), payload_bits=8 * int(msdu_bytes) * n_mpdus,
                    n_mpdus=n_mpdus)


def frame_airtime_s(phy: Phy, mcs: int, msdu_bytes: int, **kwargs) -> float:
    """Channel time of one access delivering MSDUs of ``msdu_bytes`` (:func:`exchange`'s total), s."""
    return exchange(phy, mcs, msdu_bytes, **kwargs).total_s


def max_throughput_mbps(phy: Phy, mcs: int, msdu_bytes: int, **kwargs) -> float:
    """Maximum MSDU throughput of one saturated station with no collision and no error, Mbit/s.

    ``8·MSDU·n_MPDUs / exchange time``: Jun et al.'s theoretical maximum throughput (TMT) for a/b/g,
    extended to A-MPDU with BlockAck for n/ac. Keyword arguments as :func:`exchange`.
    """
    ex = exchange(phy, mcs, msdu_bytes, **kwargs)
    return ex.payload_bits / ex.total_s / 1e6


@dataclass(frozen=True)
class TcpGoodput:
    """TCP goodput over one hop and how the channel time divides between data and TCP ACKs."""

    goodput_mbps: float
    segments_per_access: int
    data_exchange_s: float
    acks_per_access: int
    ack_exchanges_per_data_exchange: float
    ack_exchange_s: float

    @property
    def ack_airtime_fraction(self) -> float:
        """Share of the channel time taken by the TCP ACKs' accesses."""
        ack = self.ack_exchanges_per_data_exchange * self.ack_exchange_s
        return ack / (ack + self.data_exchange_s)


def tcp_goodput(phy: Phy, mcs: int, *, mss_bytes: int = 1448, header_bytes: int = TCP_IP_HEADER_BYTES,
                segments_per_ack: int = 2, reverse_mcs: int | None = None, access: AccessCategory | None = None,
                framing: MacFraming | None = None, aggregate_acks: bool = True) -> TcpGoodput:
    """Goodput of a saturating bulk TCP flow over one 802.11 hop, TCP ACK airtime included, Mbit/s.

    Data segments (MSS + ``header_bytes``) go out in accesses of ``n`` MPDUs (1 for a/b/g, the
    largest A-MPDU for n/ac); the receiver answers every ``segments_per_ack`` segments with a TCP
    ACK (``header_bytes`` MSDU) at ``reverse_mcs``, in accesses of their own: one per TCP ACK for
    a/b/g, one A-MPDU holding the TCP ACKs of a data A-MPDU for n/ac (``aggregate_acks``).
    No collisions between the two senders (each access pays its own AIFS and mean backoff);
    goodput = 8·MSS·n / (data access + its share of TCP ACK accesses).

    Parameters
    ----------
    phy : Phy
    mcs : int
        MCS of the data direction.
    mss_bytes : int
        TCP payload per segment, bytes (1448: a 1500-byte IP packet with timestamps).
    header_bytes : int
        IP + TCP header bytes per segment and per TCP ACK (52 with timestamps, 40 without).
    segments_per_ack : int
        2 for delayed ACKs (RFC 1122/5681), 1 for an ACK per segment.
    reverse_mcs : int or None
        MCS of the TCP ACK direction; None: ``mcs``.
    access, framing
        As :func:`exchange`.
    aggregate_acks : bool
        For n/ac, put a data A-MPDU's TCP ACKs into one A-MPDU.

    Returns
    -------
    TcpGoodput

    Raises
    ------
    ValueError
        For a non-positive MSS or ``segments_per_ack``, a negative header, a bad MCS.
    """
    _positive_int("mss_bytes", mss_bytes)
    _positive_int("segments_per_ack", segments_per_ack)
    if isinstance(header_bytes, bool) or not isinstance(header_bytes, (int, np.integer)) or header_bytes < 0:
        raise ValueError(f"header_bytes must be a non-negative integer, got {header_bytes!r}")
    rmcs = mcs if reverse_mcs is None else reverse_mcs
    data = exchange(phy, mcs, mss_bytes + header_bytes, access=access, framing=framing)
    n = data.n_mpdus
    acks = n / segments_per_ack
    if phy.standard in ("n", "ac") and aggregate_acks:
        fr = default_framing(phy) if framing is None else framing
        cap = max_ampdu_mpdus(phy, rmcs, fr.mpdu_bytes(header_bytes), access=access_parameters(phy, access))
        per_access = max(1, min(cap, math.ceil(acks - 1e-9)))
    else:
        per_access = 1
    ack_ex = exchange(phy, rmcs, header_bytes, n_mpdus=per_access, access=access, framing=framing)
    ack_accesses = acks / per_access
    total = data.total_s + ack_accesses * ack_ex.total_s
    return TcpGoodput(goodput_mbps=8 * mss_bytes * n / total / 1e6, segments_per_access=n,
                      data_exchange_s=data.total_s, acks_per_access=per_access,
                      ack_exchanges_per_data_exchange=ack_accesses, ack_exchange_s=ack_ex.total_s)


def tcp_goodput_mbps(phy: Phy, mcs: int, **kwargs) -> float:
    """:func:`tcp_goodput`'s goodput, Mbit/s."""
    return tcp_goodput(phy, mcs, **kwargs).goodput_mbps


# ---------------------------------------------------------------------------------------------- Bianchi


@dataclass(frozen=True)
class BianchiResult:
    """Bianchi's saturation fixed point and throughput.

    ``tau``: probability a station transmits in a random slot; ``p``: conditional collision
    probability; ``throughput_bps``: payload bits per second over the channel (all stations);
    ``p_tr``, ``p_s``: probability a slot holds a transmission, and that it is successful.
    """

    tau: float
    p: float
    p_tr: float
    p_s: float
    throughput_bps: float


def bianchi_tau(p: float, w: int, m: int) -> float:
    """τ(p) of Bianchi's Eq. (7), in the form 2 / (1 + W + p·W·Σ_{i<m} (2p)^i) (no 0/0 at p = ½).

    ``w``: W, the slots of the first backoff stage (CWmin + 1); ``m``: the doublings to CWmax.
    """
    return 2.0 / (1.0 + w + p * w * sum((2.0 * p) ** i for i in range(m)))


def bianchi_fixed_point(n_stations: int, w: int, m: int) -> tuple[float, float]:
    """Solve Bianchi's Eqs. (7) and (9), τ = τ(p) and p = 1 − (1 − τ)^(n−1), for (τ, p).

    Parameters
    ----------
    n_stations : int
        Saturated stations, ≥ 1 (p = 0 for one station).
    w : int
        W = CWmin + 1 slots, ≥ 1.
    m : int
        Maximum backoff stage, CWmax + 1 = 2^m · W, ≥ 0.

    Returns
    -------
    (tau, p) : tuple of float

    Raises
    ------
    ValueError
        For a non-positive ``n_stations`` or ``w``, a negative ``m``.
    """
    _positive_int("n_stations", n_stations)
    _positive_int("w", w)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
        raise ValueError(f"m must be a non-negative integer, got {m!r}")
    if n_stations == 1:
        return bianchi_tau(0.0, w, m), 0.0
    p = brentq(lambda q: q - (1.0 - (1.0 - bianchi_tau(q, w, m)) ** (n_stations - 1)), 0.0, 1.0, xtol=1e-15,
               rtol=4 * np.finfo(float).eps)
    return bianchi_tau(p, w, m), p


def bianchi_saturation(n_stations: int, payload_bits: float, ts_s: float, tc_s: float, slot_s: float,
                       w: int, m: int) -> BianchiResult:
    """Bianchi's saturation throughput, Eq. (13): S = P_s·P_tr·E[P] / ((1 − P_tr)σ + P_tr·P_s·T_s + P_tr(1 − P_s)T_c).

    Parameters
    ----------
    n_stations : int
        Saturated stations, ≥ 1.
    payload_bits : float
        E[P], payload per successful transmission, bits, > 0.
    ts_s, tc_s : float
        T_s and T_c, the channel time of a success and of a collision, s, > 0 (Bianchi §IV: for basic
        access T_s = H + E[P] + SIFS + δ + ACK + DIFS + δ and T_c = H + E[P*] + DIFS + δ; with RTS/CTS
        T_s adds RTS + SIFS + δ + CTS + SIFS + δ and T_c = RTS + DIFS + δ).
    slot_s : float
        σ, the empty slot, s, > 0.
    w, m : int
        See :func:`bianchi_fixed_point`.

    Returns
    -------
    BianchiResult

    Raises
    ------
    ValueError
        For a non-positive time or payload, or a bad ``n_stations``, ``w``, ``m``.
    """
    for name, value in (("payload_bits", payload_bits), ("ts_s", ts_s), ("tc_s", tc_s), ("slot_s", slot_s)):
        if not (isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    tau, p = bianchi_fixed_point(n_stations, w, m)
    p_tr = 1.0 - (1.0 - tau) ** n_stations
    p_s = n_stations * tau * (1.0 - tau) ** (n_stations - 1) / p_tr
    slot_mean = (1.0 - p_tr) * slot_s + p_tr * p_s * ts_s + p_tr * (1.0 - p_s) * tc_s
    return BianchiResult(tau=tau, p=p, p_tr=p_tr, p_s=p_s, throughput_bps=p_s * p_tr * payload_bits / slot_mean)


def bianchi_throughput(phy: Phy, mcs: int, msdu_bytes: int, n_stations: int, *, rts_cts: bool = False,
                       n_mpdus: int = 1, access: AccessCategory | None = None, framing: MacFraming | None = None,
                       control_rate_mbps: float | None = None, propagation_delay_s: float = 0.0) -> BianchiResult:
    """Bianchi's saturation throughput of ``n_stations`` sending MSDUs of ``msdu_bytes`` at ``mcs``.

    T_s and T_c from this module's PPDU durations: basic access
    T_s = PPDU + SIFS + δ + Ack + AIFS + δ, T_c = PPDU + AIFS + δ; RTS/CTS
    T_s = RTS + SIFS + δ + CTS + SIFS + δ + PPDU + SIFS + δ + Ack + AIFS + δ, T_c = RTS + AIFS + δ
    (a collision ends with AIFS, not EIFS, as in Bianchi). W = CWmin + 1, m = log2((CWmax + 1)/W).
    With ``n_mpdus`` > 1 the PPDU is an A-MPDU and the Ack a BlockAck.

    Returns
    -------
    BianchiResult
        ``throughput_bps`` counts MSDU bits.

    Raises
    ------
    ValueError
        As :func:`exchange` and :func:`bianchi_saturation`.
    """
    _non_negative("propagation_delay_s", propagation_delay_s)
    ex = exchange(phy, mcs, msdu_bytes, n_mpdus=n_mpdus, rts_cts=False, access=access, framing=framing,
                  control_rate_mbps=control_rate_mbps)
    acc = access_parameters(phy, access)
    d = propagation_delay_s
    if rts_cts:
        ctrl = phy.control_rate_mbps(mcs) if control_rate_mbps is None else control_rate_mbps
        rts = phy.control_duration_s(RTS_BYTES, ctrl)
        cts = phy.control_duration_s(CTS_BYTES, ctrl)
        ts = rts + phy.sifs_s + d + cts + phy.sifs_s + d + ex.data_s + phy.sifs_s + d + ex.ack_s + acc.aifs_s + d
        tc = rts + acc.aifs_s + d
    else:
        ts = ex.data_s + phy.sifs_s + d + ex.ack_s + acc.aifs_s + d
        tc = ex.data_s + acc.aifs_s + d
    w = acc.cw_min + 1
    m = int(round(math.log2((acc.cw_max + 1) / w)))
    return bianchi_saturation(n_stations, ex.payload_bits, ts, tc, acc.slot_s, w, m)


# ------------------------------------------------------------------------------------ the anomaly


def anomaly_throughputs_bps(exchange_s: Sequence[float], payload_bits: float | Sequence[float], *,
                            slot_s: float, cw_min_slots: int, collisions: bool = True) -> np.ndarray:
    """Per-station throughput in a cell under DCF's equal transmission opportunities (Heusse et al. 2003).

    Every station sends one frame per round, so all get the same throughput, set by the sum of
    the stations' airtimes:

        X_i = s_i / (Σ_j (T_j + t_cont(N)) + P_c(N)·N·t_jam)            [bit/s]

    with ``T_j`` station j's frame exchange without backoff (AIFS/DIFS + PPDU + SIFS + Ack), the
    contention time t_cont(N) = σ·CW_min·(1 + P_c(N))/(2N) with P_c(N) = 1 − (1 − 1/CW_min)^(N−1)
    (after Heusse §III, written so that one station's contention is the mean backoff of CW_min/2
    slots), and t_jam the mean length of a collision, the longer frame of a random pair (Heusse §IV:
    2/N·T_s + (1 − 2/N)·T_f with one slow station). With equal ``s_i`` the throughputs are equal.

    Parameters
    ----------
    exchange_s : sequence of float, shape (N,)
        Each station's frame exchange time without backoff, s, > 0.
    payload_bits : float or sequence of float, shape (N,)
        Payload bits each station delivers per frame, > 0.
    slot_s : float
        Slot time σ, s, > 0.
    cw_min_slots : int
        CW_min as Heusse writes it, the number of slots of the first window (aCWmin + 1).
    collisions : bool
        Count the collision term P_c(N)·N·t_jam.

    Returns
    -------
    numpy.ndarray, shape (N,)
        Throughput of each station, bit/s.

    Raises
    ------
    ValueError
        For an empty or non-positive ``exchange_s``, a payload of the wrong shape or not positive,
        a non-positive slot or window.
    """
    t = np.asarray(exchange_s, dtype=float)
    if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)) or np.any(t <= 0):
        raise ValueError("exchange_s must be a non-empty 1-D sequence of positive finite seconds")
    s = np.broadcast_to(np.asarray(payload_bits, dtype=float), t.shape) if np.ndim(payload_bits) == 0 else \
        np.asarray(payload_bits, dtype=float)
    if s.shape != t.shape or np.any(~np.isfinite(s)) or np.any(s <= 0):
        raise ValueError(f"payload_bits must be positive, a scalar or shape {t.shape}")
    if not (math.isfinite(slot_s) and slot_s > 0):
        raise ValueError(f"slot_s must be a positive number of seconds, got {slot_s!r}")
    _positive_int("cw_min_slots", cw_min_slots)
    n = t.size
    p_c = 1.0 - (1.0 - 1.0 / cw_min_slots) ** (n - 1)
    t_cont = slot_s * cw_min_slots * (1.0 + p_c) / (2.0 * n)
    round_s = float(np.sum(t + t_cont))
    if collisions and n > 1:
        pair_max = np.maximum.outer(t, t)[np.triu_indices(n, 1)]
        round_s += p_c * n * float(np.mean(pair_max))
    return s / round_s


def cell_throughputs_mbps(phy: Phy, mcs: Sequence[int], msdu_bytes: int, *, access: AccessCategory | None = None,
                          framing: MacFraming | None = None, n_mpdus: Sequence[int] | None = None,
                          collisions: bool = True) -> np.ndarray:
    """Throughput of each saturated station of a cell whose stations send at ``mcs[i]``, Mbit/s.

    The performance anomaly (:func:`anomaly_throughputs_bps`) with each station's frame exchange from
    :func:`exchange` (no backoff; its contention counted by Heusse's t_cont). For n/ac a station's
    access carries ``n_mpdus[i]`` MPDUs (default: the largest A-MPDU at its MCS), so the equal
    transmission opportunities give equal A-MPDUs, not equal throughput.

    Returns
    -------
    numpy.ndarray, shape (N,)
        Mbit/s per station, in the order of ``mcs``.

    Raises
    ------
    ValueError
        For an empty ``mcs``, an ``n_mpdus`` of another length, or as :func:`exchange`.
    """
    if len(mcs) == 0:
        raise ValueError("mcs must name at least one station's MCS")
    if n_mpdus is not None and len(n_mpdus) != len(mcs):
        raise ValueError("n_mpdus must have one entry per station of mcs")
    exs = [exchange(phy, k, msdu_bytes, access=access, framing=framing, include_backoff=False,
                    n_mpdus=None if n_mpdus is None else n_mpdus[i]) for i, k in enumerate(mcs)]
    acc = access_parameters(phy, access)
    x = anomaly_throughputs_bps([e.total_s for e in exs], [e.payload_bits for e in exs], slot_s=acc.slot_s,
                                cw_min_slots=acc.cw_min + 1, collisions=collisions)
    return x / 1e6

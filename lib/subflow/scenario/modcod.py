"""DVB-S2 and DVB-S2X MODCODs: required Es/N0 and spectral efficiency, as the standards tabulate them.

Each entry is ``(name, es_n0_db, efficiency_bit_per_symbol)`` for normal FECFRAMEs (64,800 bits), AWGN
channel, quasi-error-free operation (PER 10⁻⁷), ideal demodulation, no pilots:

* DVB-S2: ETSI EN 302 307-1 V1.4.1 (2014-11), §6, Table 13 ("Es/No performance at Quasi Error Free
  PER = 10⁻⁷ (AWGN channel)"), the 28 MODCODs of the normal frame;
* DVB-S2X: ETSI EN 302 307-2 V1.1.1 (2014-10), §6, Table 20a (normal FECFRAME MODCODs of the
  extension, without the VL-SNR set of Table 20b); "-L" marks the MODCODs the standard designs
  for linear channels.

The spectral efficiency counts the bits of a BBFRAME's data field per transmitted symbol (PL
framing included), so a carrier of symbol rate ``Rs`` carries ``Rs · efficiency`` of useful bits.
The scenario names MODCODs by the strings below (``"QPSK 3/4"``, ``"16APSK 2/3-L"``);
:mod:`subflow.space.link_budget` picks one per time step.
"""

from __future__ import annotations

from typing import NamedTuple


class Modcod(NamedTuple):
    """One MODCOD: ``name``, the Es/N0 it needs (dB) and its spectral efficiency (bit/symbol)."""

    name: str
    es_n0_db: float
    efficiency: float


#: ETSI EN 302 307-1 V1.4.1, Table 13 (normal FECFRAME, AWGN, QEF)
DVB_S2: tuple[Modcod, ...] = tuple(Modcod(*row) for row in (
    ("QPSK 1/4", -2.35, 0.490243), ("QPSK 1/3", -1.24, 0.656448), ("QPSK 2/5", -0.30, 0.789412),
    ("QPSK 1/2", 1.00, 0.988858), ("QPSK 3/5", 2.23, 1.188304), ("QPSK 2/3", 3.10, 1.322253),
    ("QPSK 3/4", 4.03, 1.487473), ("QPSK 4/5", 4.68, 1.587196), ("QPSK 5/6", 5.18, 1.654663),
    ("QPSK 8/9", 6.20, 1.766451), ("QPSK 9/10", 6.42, 1.788612),
    ("8PSK 3/5", 5.50, 1.779991), ("8PSK 2/3", 6.62, 1.980636), ("8PSK 3/4", 7.91, 2.228124),
    ("8PSK 5/6", 9.35, 2.478562), ("8PSK 8/9", 10.69, 2.646012), ("8PSK 9/10", 10.98, 2.679207),
    ("16APSK 2/3", 8.97, 2.637201), ("16APSK 3/4", 10.21, 2.966728), ("16APSK 4/5", 11.03, 3.165623),
    ("16APSK 5/6", 11.61, 3.300184), ("16APSK 8/9", 12.89, 3.523143), ("16APSK 9/10", 13.13, 3.567342),
    ("32APSK 3/4", 12.73, 3.703295), ("32APSK 4/5", 13.64, 3.951571), ("32APSK 5/6", 14.28, 4.119540),
    ("32APSK 8/9", 15.69, 4.397854), ("32APSK 9/10", 16.05, 4.453027),
))

#: ETSI EN 302 307-2 V1.1.1, Table 20a (normal FECFRAME MODCODs of DVB-S2X, AWGN, QEF)
DVB_S2X_EXTENSION: tuple[Modcod, ...] = tuple(Modcod(*row) for row in (
    ("QPSK 13/45", -2.03, 0.567805), ("QPSK 9/20", 0.22, 0.889135), ("QPSK 11/20", 1.45, 1.088581),
    ("8APSK 5/9-L", 4.73, 1.647211), ("8APSK 26/45-L", 5.13, 1.713601),
    ("8PSK 23/36", 6.12, 1.896173), ("8PSK 25/36", 7.02, 2.062148), ("8PSK 13/18", 7.49, 2.145136),
    ("16APSK 1/2-L", 5.97, 1.972253), ("16APSK 8/15-L", 6.55, 2.104850), ("16APSK 5/9-L", 6.84, 2.193247),
    ("16APSK 26/45", 7.51, 2.281645), ("16APSK 3/5", 7.80, 2.370043), ("16APSK 3/5-L", 7.41, 2.370043),
    ("16APSK 28/45", 8.10, 2.458441), ("16APSK 23/36", 8.38, 2.524739), ("16APSK 2/3-L", 8.43, 2.635236),
    ("16APSK 25/36", 9.27, 2.745734), ("16APSK 13/18", 9.71, 2.856231), ("16APSK 7/9", 10.65, 3.077225),
    ("16APSK 77/90", 11.99, 3.386618),
    ("32APSK 2/3-L", 11.10, 3.289502), ("32APSK 32/45", 11.75, 3.510192), ("32APSK 11/15", 12.17, 3.620536),
    ("32APSK 7/9", 13.05, 3.841226),
    ("64APSK 32/45-L", 13.98, 4.206428), ("64APSK 11/15", 14.81, 4.338659), ("64APSK 7/9", 15.47, 4.603122),
    ("64APSK 4/5", 15.87, 4.735354), ("64APSK 5/6", 16.55, 4.933701),
    ("128APSK 3/4", 17.73, 5.163248), ("128APSK 7/9", 18.53, 5.355556),
    ("256APSK 29/45-L", 16.98, 5.065690), ("256APSK 2/3-L", 17.24, 5.241514), ("256APSK 31/45-L", 18.10, 5.417338),
    ("256APSK 32/45", 18.59, 5.593162), ("256APSK 11/15-L", 18.84, 5.768987), ("256APSK 3/4", 19.57, 5.900855),
))

#: the MODCODs a receiver of each standard may use: DVB-S2X receivers also decode every DVB-S2 MODCOD
#: (EN 302 307-2 §5.1.1)
MODCODS: dict[str, tuple[Modcod, ...]] = {
    "dvb-s2": DVB_S2,
    "dvb-s2x": DVB_S2 + DVB_S2X_EXTENSION,
}


def modcod_named(standard: str, name: str) -> Modcod:
    """The MODCOD ``name`` of ``standard`` (``"dvb-s2"`` or ``"dvb-s2x"``).

    Raises
    ------
    KeyError
        If the standard has no MODCOD of that name.
    """
    for m in MODCODS[standard]:
        if m.name == name:
            return m
    raise KeyError(name)

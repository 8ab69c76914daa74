"""Voice quality from network figures: the E-model's rating R and MOS, RTP interarrival jitter, codec bit rates.

* **E-model** (ITU-T G.107 (06/2015), §7): R = Ro − Is − Id − Ie,eff + A, every term from the
  Recommendation's formulas (§7.2–7.6) and its default values (Table 3); with every default R = 93.2
  (§7.7) and MOS 4.41 (Annex B). :func:`e_model` evaluates it for any :class:`EModelParameters`;
  :func:`voice_rating` for a VoIP call from its mouth-to-ear delay, loss and codec;
  :func:`interval_ratings` for a voice flow's output intervals.
* **Codec impairments** (ITU-T G.113 (11/2007) Appendix I): the equipment impairment factor Ie of
  Table I.1 and the packet-loss robustness factor Bpl of Table I.3, for the codecs those tables give
  both for (:data:`CODEC_IMPAIRMENTS`). Opus has no value there (G.113's Appendix I predates it), so
  :func:`codec_impairment` refuses it rather than invent one: a caller that has Ie and Bpl from its
  own subjective tests passes them to :class:`EModelParameters` directly.
* **Interarrival jitter** (RFC 3550 §6.4.1, Appendix A.8): J(i) = J(i−1) + (|D(i−1, i)| − J(i−1))/16
  with D(i−1, i) = (R_i − S_i) − (R_{i−1} − S_{i−1}) (:func:`interarrival_jitter_s`).
* **On-the-wire rate** of a packetised codec (:func:`wire_rate_kbps`): payload bit rate × (payload
  + IPv4/UDP/RTP headers, 20 + 8 + 12 = 40 bytes) / payload (RFC 3551 §4.5 frame sizes: G.711 one
  byte per sample at 8 kHz, G.729 10 bytes per 10 ms).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from subflow.errors import QualityModelInvalid
from subflow.scenario.document import Flow, VoiceSource

#: IPv4 (20 bytes, RFC 791) + UDP (8, RFC 768) + RTP (12, RFC 3550 §5.1) headers of one voice packet, bytes
IP_UDP_RTP_HEADER_BYTES = 40
#: default packetisation interval of a voice flow, ms (RFC 3551 §4.2: 20 ms)
DEFAULT_PACKET_INTERVAL_MS = 20.0
#: payload bit rate of each fixed-rate codec, kbit/s (G.711 64, G.729 and G.729A 8); Opus has none (configured)
CODEC_BITRATE_KBPS = {"g711": 64.0, "g729a": 8.0}
#: codec names :func:`wire_rate_kbps` knows (Opus at the bit rate the caller gives, RFC 7587 §3.1.1: 6–510 kbit/s)
CODECS = ("g711", "g729a", "opus")


@dataclass(frozen=True)
class CodecImpairment:
    """Equipment impairment factor ``ie`` and packet-loss robustness factor ``bpl`` of a codec (ITU-T G.113)."""

    ie: float
    bpl: float
    source: str


#: (codec, packet loss concealment, voice activity detection) → Ie and Bpl from ITU-T G.113 (11/2007) Appendix I:
#: Ie from Table I.1, Bpl from Table I.3 (random packet loss). G.711 with the PLC of its Appendix I: Ie 0, Bpl 25.1;
#: G.711 without PLC: Ie 0, Bpl 4.3; G.729A with VAD (Annex B): Ie 11, Bpl 19.0
CODEC_IMPAIRMENTS = {
    ("g711", True, False): CodecImpairment(0.0, 25.1, "ITU-T G.113 App. I, Tables I.1 and I.3: G.711 with PLC"),
    ("g711", False, False): CodecImpairment(0.0, 4.3, "ITU-T G.113 App. I, Tables I.1 and I.3: G.711 without PLC"),
    ("g729a", True, True): CodecImpairment(11.0, 19.0, "ITU-T G.113 App. I, Tables I.1 and I.3: G.729A + VAD"),
}


def codec_impairment(codec: str, plc: bool = True, vad: bool = False) -> CodecImpairment:
    """Ie and Bpl of ``codec`` from ITU-T G.113 (11/2007) Appendix I (Tables I.1, I.3).

    Parameters
    ----------
    codec : {"g711", "g729a"}
        ``"opus"`` is refused: G.113's Appendix I has no value for it.
    plc : bool
        Packet loss concealment (G.711 Appendix I). G.729A always conceals (its decoder's frame erasure
        concealment), so only ``plc=True`` is tabulated for it.
    vad : bool
        Voice activity detection (silence suppression): G.113 tabulates G.711 without and G.729A with it.

    Raises
    ------
    QualityModelInvalid
        ``field`` ``"codec"`` for a codec or a (plc, vad) combination the tables do not give.
    """
    found = CODEC_IMPAIRMENTS.get((codec, bool(plc), bool(vad)))
    if found is None:
        known = ", ".join(f"{c} (plc={p}, vad={v})" for c, p, v in CODEC_IMPAIRMENTS)
        raise QualityModelInvalid("codec", f"no ITU-T G.113 Appendix I value for {codec} (plc={plc}, vad={vad}); "
                                           f"tabulated: {known}")
    return found


def wire_rate_kbps(codec: str, packet_interval_ms: float = DEFAULT_PACKET_INTERVAL_MS,
                   bitrate_kbps: float | None = None, header_bytes: int = IP_UDP_RTP_HEADER_BYTES) -> float:
    """IP bit rate of one voice stream while it talks, kbit/s: payload rate × (payload + headers) / payload.

    Parameters
    ----------
    codec : {"g711", "g729a", "opus"}
        G.711 64 kbit/s, G.729A 8 kbit/s (:data:`CODEC_BITRATE_KBPS`); Opus at ``bitrate_kbps``.
    packet_interval_ms : float
        Audio carried by one packet, ms (> 0; G.729A in whole 10 ms frames).
    bitrate_kbps : float, optional
        The codec's payload rate; required for Opus, and when given for the others it must match the table.
    header_bytes : int
        Headers per packet (IPv4 + UDP + RTP = 40; 60 for IPv6).

    Raises
    ------
    QualityModelInvalid
        Naming ``codec``, ``packet_interval_ms``, ``bitrate_kbps`` or ``header_bytes``.
    """
    if codec not in CODECS:
        raise QualityModelInvalid("codec", f"unknown codec {codec!r}; one of {', '.join(CODECS)}")
    if not (math.isfinite(packet_interval_ms) and packet_interval_ms > 0):
        raise QualityModelInvalid("packet_interval_ms", f"must be a positive number of ms, got {packet_interval_ms!r}")
    if header_bytes < 0:
        raise QualityModelInvalid("header_bytes", f"must be non-negative, got {header_bytes!r}")
    if codec == "g729a" and abs(packet_interval_ms / 10.0 - round(packet_interval_ms / 10.0)) > 1e-9:
        raise QualityModelInvalid("packet_interval_ms", "G.729A packs whole 10 ms frames")
    rate = CODEC_BITRATE_KBPS.get(codec)
    if rate is None:
        if bitrate_kbps is None or not (math.isfinite(bitrate_kbps) and bitrate_kbps > 0):
            raise QualityModelInvalid("bitrate_kbps", f"{codec} needs a positive bit rate, got {bitrate_kbps!r}")
        rate = float(bitrate_kbps)
    elif bitrate_kbps is not None and bitrate_kbps != rate:
        raise QualityModelInvalid("bitrate_kbps", f"{codec} runs at {rate:g} kbit/s, not {bitrate_kbps!r}")
    payload_bytes = rate * packet_interval_ms / 8.0  # kbit/s × ms = bits; / 8 = bytes
    return rate * (payload_bytes + header_bytes) / payload_bytes


@dataclass(frozen=True)
class EModelParameters:
    """The E-model's inputs with the default values of ITU-T G.107 (06/2015) Table 3.

    Loudness ratings and noise in dB (``slr_db`` send, ``rlr_db`` receive, ``stmr_db`` sidetone masking,
    ``lstr_db`` listener sidetone, ``telr_db`` talker echo loudness, ``wepl_db`` weighted echo path loss),
    ``ds``/``dr`` the telephones' D-values, delays in ms (``t_ms`` mean one-way delay of the echo path,
    ``tr_ms`` round-trip delay of a 4-wire loop, ``ta_ms`` absolute one-way delay), ``qdu`` quantizing
    distortion units, ``ie`` / ``bpl`` the codec's impairment and packet-loss robustness factors,
    ``ppl_pct`` random packet loss in per cent, ``burst_r`` burst ratio (1 = random loss), ``nc_dbm0``
    circuit noise, ``nfor_dbmp`` noise floor at the receive side, ``ps_dba``/``pr_dba`` room noise at
    send and receive side, ``a`` the advantage factor, ``st``/``mt_ms`` the delay sensitivity class
    (Table 1: default sT 1, mT 100 ms). ``bpl`` 4.3 is G.711's without PLC (G.113 Table I.3).
    """

    slr_db: float = 8.0
    rlr_db: float = 2.0
    stmr_db: float = 15.0
    lstr_db: float = 18.0
    ds: float = 3.0
    dr: float = 3.0
    telr_db: float = 65.0
    wepl_db: float = 110.0
    t_ms: float = 0.0
    tr_ms: float = 0.0
    ta_ms: float = 0.0
    qdu: float = 1.0
    ie: float = 0.0
    bpl: float = 4.3
    ppl_pct: float = 0.0
    burst_r: float = 1.0
    nc_dbm0: float = -70.0
    nfor_dbmp: float = -64.0
    ps_dba: float = 35.0
    pr_dba: float = 35.0
    a: float = 0.0
    st: float = 1.0
    mt_ms: float = 100.0


@dataclass(frozen=True)
class Rating:
    """The E-model's terms (G.107 §7.1): ``r = ro − is_ − id_ − ie_eff + a``; ``id_ = idte + idle + idd``;
    ``mos`` from ``r`` (Annex B)."""

    ro: float
    is_: float
    idte: float
    idle: float
    idd: float
    ie_eff: float
    a: float
    r: float
    mos: float

    @property
    def id_(self) -> float:
        """Delay impairment Id = Idte + Idle + Idd."""
        return self.idte + self.idle + self.idd


def _lg(x: float) -> float:
    return math.log10(x)


def _check_parameters(p: EModelParameters) -> None:
    for name in ("slr_db", "rlr_db", "stmr_db", "lstr_db", "ds", "dr", "telr_db", "wepl_db", "t_ms", "tr_ms",
                 "ta_ms", "qdu", "ie", "bpl", "ppl_pct", "burst_r", "nc_dbm0", "nfor_dbmp", "ps_dba", "pr_dba",
                 "a", "st", "mt_ms"):
        if not math.isfinite(getattr(p, name)):
            raise QualityModelInvalid(name, f"must be finite, got {getattr(p, name)!r}")
    for name in ("t_ms", "tr_ms", "ta_ms", "ppl_pct", "ie"):
        if getattr(p, name) < 0:
            raise QualityModelInvalid(name, f"must be non-negative, got {getattr(p, name)!r}")
    for name in ("qdu", "bpl", "burst_r", "st", "mt_ms"):
        if getattr(p, name) <= 0:
            raise QualityModelInvalid(name, f"must be positive, got {getattr(p, name)!r}")
    if p.ppl_pct > 100:
        raise QualityModelInvalid("ppl_pct", f"must be at most 100 %, got {p.ppl_pct!r}")


def _noise(p: EModelParameters) -> tuple[float, float]:
    """No (dBm0p, G.107 eq. 7-3..7-7) and OLR = SLR + RLR."""
    olr = p.slr_db + p.rlr_db
    nos = p.ps_dba - p.slr_db - p.ds - 100 + 0.004 * (p.ps_dba - olr - p.ds - 14) ** 2
    pre = p.pr_dba + 10 * _lg(1 + 10 ** ((10 - p.lstr_db) / 10))
    nor = p.rlr_db - 121 + pre + 0.008 * (pre - 35) ** 2
    nfo = p.nfor_dbmp + p.rlr_db
    no = 10 * _lg(10 ** (p.nc_dbm0 / 10) + 10 ** (nos / 10) + 10 ** (nor / 10) + 10 ** (nfo / 10))
    return no, olr


def _simultaneous(p: EModelParameters, ro: float, no: float, olr: float) -> tuple[float, float]:
    """Is = Iolr + Ist + Iq (G.107 §7.3) and Ist (read again by the talker echo when STMR < 9 dB)."""
    xolr = olr + 0.2 * (64 + no - p.rlr_db)
    iolr = 20 * ((1 + (xolr / 8) ** 8) ** (1 / 8) - xolr / 8)
    stmro = -10 * _lg(10 ** (-p.stmr_db / 10) + math.exp(-p.t_ms / 4) * 10 ** (-p.telr_db / 10))
    ist = (12 * (1 + ((stmro - 13) / 6) ** 8) ** (1 / 8) - 28 * (1 + ((stmro + 1) / 19.4) ** 35) ** (1 / 35)
           - 13 * (1 + ((stmro - 3) / 33) ** 13) ** (1 / 13) + 29)
    q = 37 - 15 * _lg(p.qdu)
    g = 1.07 + 0.258 * q + 0.0602 * q ** 2
    y = (ro - 100) / 15 + 46 / 8.4 - g / 9
    z = 46 / 30 - g / 40
    iq = 15 * _lg(1 + 10 ** y + 10 ** z)
    return iolr + ist + iq, ist


def _delay(p: EModelParameters, ro: float, no: float, ist: float) -> tuple[float, float, float]:
    """Idte, Idle, Idd (G.107 §7.4): talker echo (TERVs for STMR < 9 dB, Idtes for STMR > 20 dB, 0 for
    T < 1 ms), listener echo, absolute delay (delay sensitivity class sT, mT)."""
    t = p.t_ms
    if t < 1.0:
        idte = 0.0  # below 1 ms the talker echo is heard as sidetone (its part of STMRo)
    else:
        roe = -1.5 * (no - p.rlr_db)
        terv = p.telr_db - 40 * _lg((1 + t / 10) / (1 + t / 150)) + 6 * math.exp(-0.3 * t ** 2)
        if p.stmr_db < 9:
            terv += ist / 2
        re = 80 + 2.5 * (terv - 14)
        idte = ((roe - re) / 2 + math.sqrt((roe - re) ** 2 / 4 + 100) - 1) * (1 - math.exp(-t))
        if p.stmr_db > 20:
            idte = math.sqrt(idte ** 2 + ist ** 2)  # Idtes
    rle = 10.5 * (p.wepl_db + 7) * (p.tr_ms + 1) ** -0.25
    idle = (ro - rle) / 2 + math.sqrt((ro - rle) ** 2 / 4 + 169)
    if p.ta_ms <= p.mt_ms:
        idd = 0.0
    else:
        x = _lg(p.ta_ms / p.mt_ms) / _lg(2)
        k = 6 * p.st
        idd = 25 * ((1 + x ** k) ** (1 / k) - 3 * (1 + (x / 3) ** k) ** (1 / k) + 2)
    return idte, idle, idd


def effective_equipment_impairment(ie: float, bpl: float, ppl_pct: float, burst_r: float = 1.0) -> float:
    """Ie,eff = Ie + (95 − Ie) · Ppl / (Ppl/BurstR + Bpl) (ITU-T G.107 (06/2015) eq. 7-29).

    ``ppl_pct`` is the packet loss in per cent (0–100), ``burst_r`` the burst ratio (1: random loss).
    Raises :class:`~subflow.errors.QualityModelInvalid` naming a bad parameter.
    """
    p = EModelParameters(ie=ie, bpl=bpl, ppl_pct=ppl_pct, burst_r=burst_r)
    _check_parameters(p)
    return ie + (95 - ie) * ppl_pct / (ppl_pct / burst_r + bpl)


def mos_from_r(r: float) -> float:
    """MOS (conversational quality, 1–4.5) from the rating ``r`` (ITU-T G.107 (06/2015) Annex B, eq. B-4):
    1 for R < 0, 1 + 0.035R + R(R − 60)(100 − R)·7·10⁻⁶ for 0 ≤ R ≤ 100, 4.5 above. The cubic dips below 1
    (to 0.99) for 0 < R < 6.5; the result is held at the scale's floor 1 there, so MOS never falls as R rises."""
    if not math.isfinite(r):
        raise QualityModelInvalid("r", f"must be finite, got {r!r}")
    if r < 0:
        return 1.0
    if r > 100:
        return 4.5
    return max(1.0, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6)


def e_model(params: EModelParameters = EModelParameters()) -> Rating:
    """The transmission rating R of ITU-T G.107 (06/2015) §7 and its MOS (Annex B).

    R = Ro − Is − Id − Ie,eff + A with Ro = 15 − 1.5(SLR + No) (§7.2), Is = Iolr + Ist + Iq (§7.3),
    Id = Idte + Idle + Idd (§7.4), Ie,eff from Ie, Bpl, Ppl and BurstR (§7.5), A (§7.6). With every
    default of Table 3 R = 93.2 (§7.7).

    Raises
    ------
    QualityModelInvalid
        Naming a parameter that is not finite or out of its domain (negative delay or loss, loss over
        100 %, non-positive qdu, Bpl, BurstR, sT or mT).
    """
    _check_parameters(params)
    no, olr = _noise(params)
    ro = 15 - 1.5 * (params.slr_db + no)
    is_, ist = _simultaneous(params, ro, no, olr)
    idte, idle, idd = _delay(params, ro, no, ist)
    ie_eff = effective_equipment_impairment(params.ie, params.bpl, params.ppl_pct, params.burst_r)
    r = ro - is_ - (idte + idle + idd) - ie_eff + params.a
    return Rating(ro=ro, is_=is_, idte=idte, idle=idle, idd=idd, ie_eff=ie_eff, a=params.a, r=r, mos=mos_from_r(r))


#: codec look-ahead added to the mouth-to-ear delay, ms: G.711 codes sample by sample (none); G.729 and G.729A
#: analyse 5 ms of the next frame (G.729 §2: 10 ms frames with a 5 ms look-ahead; the frame itself is in the
#: packetisation interval). Opus has no G.113 values, so its rating is null whatever its look-ahead.
CODEC_LOOKAHEAD_MS = {"g711": 0.0, "g729a": 5.0, "opus": 0.0}


def mouth_to_ear_ms(one_way_ms: float, codec: str, packet_interval_ms: float, playout_delay_ms: float) -> float:
    """The mouth-to-ear delay of a VoIP call, ms: the network's one-way delay + the packetisation interval + the
    fixed playout (jitter) buffer + the codec's look-ahead (:data:`CODEC_LOOKAHEAD_MS`), the delay the E-model's
    T, Ta and Tr/2 stand for (ITU-T G.107 §7; the delay budget of ITU-T G.114 Appendix I). Every engine rates a
    call with it (docs/traffic.md)."""
    return one_way_ms + packet_interval_ms + playout_delay_ms + CODEC_LOOKAHEAD_MS[codec]


def voice_rating(mouth_to_ear_delay_ms: float, loss_fraction: float, impairment: CodecImpairment,
                 burst_ratio: float = 1.0, base: EModelParameters = EModelParameters()) -> Rating:
    """E-model rating of a VoIP call (:func:`e_model`) from its one-way delay and packet loss.

    The call is echo-free apart from the telephones' default echo (TELR 65 dB, WEPL 110 dB): the
    absolute delay Ta and the talker echo's one-way delay T are both ``mouth_to_ear_delay_ms``, the
    listener echo's round trip Tr twice it (T = Ta, Tr = 2·Ta: a four-wire path whose echo returns
    over the same delay, the common reading of G.107's delays for VoIP planning). The delay is the whole mouth-to-ear delay: the network's one-way delay plus
    packetisation, jitter buffer and codec look-ahead, which the caller adds.

    Parameters
    ----------
    mouth_to_ear_delay_ms : float
        ≥ 0, ms.
    loss_fraction : float
        Packet loss in [0, 1] (G.107's Ppl is 100 × this).
    impairment : CodecImpairment
        From :func:`codec_impairment` (or measured values).
    burst_ratio : float
        BurstR (1: random loss).
    base : EModelParameters
        The other inputs (defaults of Table 3).

    Raises
    ------
    QualityModelInvalid
        Naming ``mouth_to_ear_delay_ms``, ``loss_fraction`` or a parameter of :func:`e_model`.
    """
    if not (math.isfinite(mouth_to_ear_delay_ms) and mouth_to_ear_delay_ms >= 0):
        raise QualityModelInvalid("mouth_to_ear_delay_ms", f"must be a non-negative number, got "
                                                           f"{mouth_to_ear_delay_ms!r}")
    if not (math.isfinite(loss_fraction) and 0 <= loss_fraction <= 1):
        raise QualityModelInvalid("loss_fraction", f"must be in [0, 1], got {loss_fraction!r}")
    d = float(mouth_to_ear_delay_ms)
    return e_model(replace(base, t_ms=d, ta_ms=d, tr_ms=2 * d, ie=impairment.ie, bpl=impairment.bpl,
                           ppl_pct=100.0 * loss_fraction, burst_r=burst_ratio))


def interval_ratings(delay_ms: Sequence[float | None], loss: Sequence[float | None], late: Sequence[float],
                     voice: VoiceSource) -> tuple[list[float | None], list[float | None]]:
    """A voice flow's E-model ``r_factor`` and ``mos`` per output interval, the rule of every engine (the fluid
    engine's sources, :mod:`subflow_engines.fluid.cbr`; the linux engine's packet records,
    :mod:`subflow_engines.linux.cbrstats`; docs/traffic.md).

    Interval b rates :func:`voice_rating` (ITU-T G.107 (06/2015) §7, MOS by Annex B) with the mouth-to-ear delay
    :func:`mouth_to_ear_ms` of ``delay_ms[b]`` (+ the packetisation interval, the playout buffer and the codec's
    look-ahead), packet loss Ppl = min(1, ``loss[b]`` + ``late[b]``) as random loss (BurstR 1), and the codec's
    Ie and Bpl from ITU-T G.113 (11/2007) Appendix I (:func:`codec_impairment` of ``voice.codec``, ``voice.plc``
    and ``voice.silence_suppression``). E.g. G.711 with PLC every 20 ms, a 40 ms buffer, 252.9 ms and no loss:
    312.9 ms mouth-to-ear, R 71.1, MOS 3.65 (docs/validation/naval_voice.md).

    Parameters
    ----------
    delay_ms : sequence of float or None, shape (n,)
        Mean one-way network delay of the packets delivered in each interval, ms; None where none was delivered.
    loss : sequence of float or None, shape (n,)
        Fraction of the interval's sent packets (bits) lost on the way, in [0, 1]; None where nothing was sent.
    late : sequence of float, shape (n,)
        Fraction of the interval's sent packets that arrived but later than the playout buffer allows (the
        buffer discards them), in [0, 1].
    voice : VoiceSource
        The flow's codec, ``plc``, ``silence_suppression``, ``packet_interval_ms`` and ``playout_delay_ms``.

    Returns
    -------
    (r_factor, mos) : two lists of float or None, shape (n,)
        Rounded to 4 decimals; None where ``delay_ms`` or ``loss`` is None, and in every interval for a codec and
        silence-suppression setting G.113 does not tabulate (Opus; G.711 with silence suppression; G.729A
        without).

    Raises
    ------
    QualityModelInvalid
        ``field`` ``"late"`` (or ``"loss"``) when the three series differ in length; the fields of
        :func:`voice_rating` for a negative delay or a loss outside [0, 1].
    """
    n = len(delay_ms)
    if len(loss) != n:
        raise QualityModelInvalid("loss", f"needs one value per interval of delay_ms ({n}), got {len(loss)}")
    if len(late) != n:
        raise QualityModelInvalid("late", f"needs one value per interval of delay_ms ({n}), got {len(late)}")
    try:
        impairment = codec_impairment(voice.codec, voice.plc, voice.silence_suppression)
    except QualityModelInvalid:
        return [None] * n, [None] * n
    r_out: list[float | None] = []
    mos_out: list[float | None] = []
    for d, lo, la in zip(delay_ms, loss, late):
        if d is None or lo is None:
            r_out.append(None)
            mos_out.append(None)
            continue
        rating = voice_rating(mouth_to_ear_ms(d, voice.codec, voice.packet_interval_ms, voice.playout_delay_ms),
                              min(1.0, lo + la), impairment)
        r_out.append(round(rating.r, 4))
        mos_out.append(round(rating.mos, 4))
    return r_out, mos_out


def interarrival_jitter_s(send_s: Sequence[float] | np.ndarray, arrival_s: Sequence[float] | np.ndarray) -> np.ndarray:
    """RTP interarrival jitter after each received packet (RFC 3550 §6.4.1, Appendix A.8), seconds.

    D(i−1, i) = (R_i − R_{i−1}) − (S_i − S_{i−1}) and J(i) = J(i−1) + (|D(i−1, i)| − J(i−1))/16, J(0) = 0,
    over the packets in the order they arrived (the RFC's "each data packet i from source SSRC_n").

    Parameters
    ----------
    send_s, arrival_s : sequences of float, shape (n,)
        Send time (the RTP timestamp, as seconds) and arrival time of each received packet, seconds;
        same length, finite.

    Returns
    -------
    ndarray, shape (n,)
        J after each packet, seconds (0 for the first).

    Raises
    ------
    QualityModelInvalid
        ``field`` ``"arrival_s"`` if the lengths differ or a time is not finite (``"send_s"`` for the send times).
    """
    s = np.asarray(send_s, dtype=float)
    r = np.asarray(arrival_s, dtype=float)
    if s.ndim != 1 or r.shape != s.shape:
        raise QualityModelInvalid("arrival_s", f"needs one arrival per send time, got shapes {r.shape} and {s.shape}")
    if not np.isfinite(s).all():
        raise QualityModelInvalid("send_s", "every send time must be finite")
    if not np.isfinite(r).all():
        raise QualityModelInvalid("arrival_s", "every arrival time must be finite (lost packets are left out)")
    out = np.zeros(s.shape)
    transit = r - s
    j = 0.0
    for i in range(1, len(s)):
        j += (abs(transit[i] - transit[i - 1]) - j) / 16.0
        out[i] = j
    return out


def flow_rate_mbps(flow: Flow) -> float | None:
    """The rate ``flow`` offers to the network, Mbit/s (the demand a planner allocates), or None for a bulk flow.

    ``tcp`` and ``udp``: the flow's ``rate_mbps`` (None for bulk tcp). ``voice``: its codec's IP rate while the
    talker speaks (:func:`wire_rate_kbps` / 1000; silence suppression lowers only the mean, so the peak is
    planned). ``video``: the encoder's ``bitrate_mbps`` (its packetisation is not modelled, so no headers are
    added).
    """
    if flow.kind == "voice":
        v = flow.voice or VoiceSource()
        return wire_rate_kbps(v.codec, v.packet_interval_ms, v.opus_bitrate_kbps) / 1000.0
    if flow.kind == "video" and flow.video is not None:
        return flow.video.bitrate_mbps
    return flow.rate_mbps


#: UDP (8 bytes, RFC 768) + IPv4 (20, RFC 791) headers of a udp flow's packet, bytes
IP_UDP_HEADER_BYTES = 28


def flow_packet_bytes(flow: Flow) -> int | None:
    """IP packet size of a udp or voice flow, bytes, or None for the other kinds.

    ``udp``: ``udp.packet_bytes`` of payload + 28 bytes of UDP and IPv4 headers (default payload 1200).
    ``voice``: the codec's payload per packet (payload rate × ``packet_interval_ms``) + 40 bytes of IPv4, UDP
    and RTP headers (G.711 every 20 ms: 160 + 40 = 200 bytes).
    """
    if flow.kind == "udp":
        return (flow.udp.packet_bytes if flow.udp is not None else 1200) + IP_UDP_HEADER_BYTES
    if flow.kind == "voice":
        v = flow.voice or VoiceSource()
        rate_kbps = CODEC_BITRATE_KBPS.get(v.codec, v.opus_bitrate_kbps)
        return int(round(rate_kbps * v.packet_interval_ms / 8.0)) + IP_UDP_RTP_HEADER_BYTES
    return None

"""Voice quality models (``subflow.results.voice``) against the Recommendations' own figures and formulas.

Expected values are either figures the sources state (ITU-T G.107 (06/2015) §7.7: R = 93.2 with every
default; Annex B's MOS of it), values worked out by hand below (Idd at 150 and 400 ms, the wire rates),
or the formulas re-written here from the Recommendation's text (G.107 §7.2–7.4, RFC 3550 §6.4.1) and
evaluated by this file, never by the module under test."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subflow.errors import QualityModelInvalid
from subflow.results.voice import (
    EModelParameters,
    codec_impairment,
    e_model,
    effective_equipment_impairment,
    interarrival_jitter_s,
    interval_ratings,
    mos_from_r,
    voice_rating,
    wire_rate_kbps,
)
from subflow.scenario.document import VoiceSource

# --- ITU-T G.107 (06/2015), written out from the text, default values of Table 3 ----------------------------
SLR, RLR, STMR, LSTR, DS, TELR, WEPL, NC, NFOR, PS, PR = 8, 2, 15, 18, 3, 65, 110, -70, -64, 35, 35


def _g107_no_and_ro() -> tuple[float, float]:
    """No (eq. 7-3) and Ro = 15 − 1.5(SLR + No) (eq. 7-2)."""
    olr = SLR + RLR
    nos = PS - SLR - DS - 100 + 0.004 * (PS - olr - DS - 14) ** 2
    pre = PR + 10 * math.log10(1 + 10 ** ((10 - LSTR) / 10))
    nor = RLR - 121 + pre + 0.008 * (pre - 35) ** 2
    nfo = NFOR + RLR
    no = 10 * math.log10(10 ** (NC / 10) + 10 ** (nos / 10) + 10 ** (nor / 10) + 10 ** (nfo / 10))
    return no, 15 - 1.5 * (SLR + no)


def _g107_id(ta_ms: float) -> float:
    """Id = Idte + Idle + Idd for a one-way delay T = Ta and a round trip Tr = 2·Ta (§7.4, STMR 15 dB: no TERVs)."""
    no, ro = _g107_no_and_ro()
    t, tr = ta_ms, 2 * ta_ms
    terv = TELR - 40 * math.log10((1 + t / 10) / (1 + t / 150)) + 6 * math.exp(-0.3 * t * t)
    roe, re = -1.5 * (no - RLR), 80 + 2.5 * (terv - 14)
    idte = ((roe - re) / 2 + math.sqrt((roe - re) ** 2 / 4 + 100) - 1) * (1 - math.exp(-t))
    rle = 10.5 * (WEPL + 7) * (tr + 1) ** -0.25
    idle = (ro - rle) / 2 + math.sqrt((ro - rle) ** 2 / 4 + 169)
    x = math.log10(ta_ms / 100) / math.log10(2)
    idd = 25 * ((1 + x ** 6) ** (1 / 6) - 3 * (1 + (x / 3) ** 6) ** (1 / 6) + 2) if ta_ms > 100 else 0.0
    return idte + idle + idd


def test_the_default_connection_rates_93_2_and_mos_4_41():
    """G.107 §7.7: with all the default values of Table 3, R = 93.2; Annex B gives MOS 4.41 for it."""
    r = e_model()
    assert r.r == pytest.approx(93.2, abs=0.05)
    assert r.mos == pytest.approx(4.41, abs=0.005)
    assert r.ro == pytest.approx(_g107_no_and_ro()[1], rel=1e-12)


@pytest.mark.parametrize(("ta_ms", "idd_by_hand"), [
    # X = lg 1.5 / lg 2 = 0.58496: 25·((1 + X⁶)^(1/6) − 3(1 + (X/3)⁶)^(1/6) + 2) = 25·0.006540
    (150.0, 0.1635),
    # X = 2: 25·(65^(1/6) − 3·(1 + (2/3)⁶)^(1/6) + 2) = 25·(2.00523 − 3.04238 + 2)
    (400.0, 24.07),
])
def test_delay_impairment_at_150_and_400_ms(ta_ms, idd_by_hand):
    rating = voice_rating(ta_ms, 0.0, codec_impairment("g711"))
    assert rating.idd == pytest.approx(idd_by_hand, abs=0.002)
    assert rating.id_ == pytest.approx(_g107_id(ta_ms), abs=1e-9)
    # R = Ro − Is − Id with Ie = 0 and no loss: the rating falls from 93.2 by Id − Id(default) (Is moves by
    # less than 1e-6 through the echo term of STMRo, e^(−T/4)·10^(−TELR/10))
    assert rating.r == pytest.approx(e_model().r + e_model().id_ - _g107_id(ta_ms), abs=1e-6)


def _annex_b_mos(r: float) -> float:
    """G.107 Annex B, eq. B-4, for 0 ≤ R ≤ 100."""
    return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6


def test_interval_ratings_rate_each_interval_by_mouth_to_ear_delay_and_loss_plus_late():
    """G.711 with PLC, 20 ms packets, a 40 ms buffer: 90 ms on the network is 90 + 20 + 40 = 150 ms mouth-to-ear
    and no loss; 340 ms is 400 ms with 1 % lost and 1 % late, Ppl = 2 %, Ie,eff = 95·2/(2 + 25.1) = 190/27.1; an
    interval that delivered nothing or sent nothing has no rating. R from the default R 93.2 less the extra Id
    (written out above from G.107 §7.4) and Ie,eff; rounded to 4 decimals."""
    voice = VoiceSource(codec="g711", plc=True, packet_interval_ms=20.0, playout_delay_ms=40.0)
    r, mos = interval_ratings([90.0, None, 340.0, 100.0], [0.0, 1.0, 0.01, None], [0.0, 0.0, 0.01, 0.0], voice)
    base = e_model().r + e_model().id_
    want = [base - _g107_id(150.0), None, base - _g107_id(400.0) - 190 / 27.1, None]
    assert [x is None for x in r] == [w is None for w in want] == [x is None for x in mos]
    for got, exp in zip(r, want):
        if exp is not None:
            assert got == pytest.approx(exp, abs=6e-5)
    assert mos[0] == pytest.approx(_annex_b_mos(want[0]), abs=1e-4)
    assert mos[2] == pytest.approx(_annex_b_mos(want[2]), abs=1e-4)
    # G.729A with VAD (Ie 11, Bpl 19): its 5 ms look-ahead makes 85 ms on the network 150 ms mouth-to-ear
    g729 = VoiceSource(codec="g729a", silence_suppression=True, packet_interval_ms=20.0, playout_delay_ms=40.0)
    r729, _ = interval_ratings([85.0], [0.0], [0.0], g729)
    assert r729[0] == pytest.approx(base - _g107_id(150.0) - 11.0, abs=6e-5)


def test_interval_ratings_are_null_for_an_untabulated_codec_and_refuse_unequal_series():
    opus = VoiceSource(codec="opus", opus_bitrate_kbps=32.0)
    assert interval_ratings([50.0, 60.0], [0.0, 0.0], [0.0, 0.0], opus) == ([None, None], [None, None])
    with pytest.raises(QualityModelInvalid) as exc:
        interval_ratings([50.0, 60.0], [0.0, 0.0], [0.0], VoiceSource())
    assert exc.value.field == "late"
    with pytest.raises(QualityModelInvalid) as exc:
        interval_ratings([50.0], [0.0, 0.0], [0.0], VoiceSource())
    assert exc.value.field == "loss"


def test_effective_equipment_impairment_and_codec_tables():
    """Ie,eff = Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl) (G.107 eq. 7-29) with G.113 App. I's values."""
    g711 = codec_impairment("g711", plc=True)
    assert (g711.ie, g711.bpl) == (0.0, 25.1)
    assert (codec_impairment("g711", plc=False).bpl) == 4.3
    g729 = codec_impairment("g729a", vad=True)
    assert (g729.ie, g729.bpl) == (11.0, 19.0)
    # 2 % random loss on G.711 with PLC: 95·2/(2 + 25.1) = 7.0111
    assert effective_equipment_impairment(0, 25.1, 2.0) == pytest.approx(190 / 27.1)
    # 1 % on G.729A + VAD, BurstR 2: 11 + 84·1/(0.5 + 19) = 15.3077
    assert effective_equipment_impairment(11, 19.0, 1.0, 2.0) == pytest.approx(11 + 84 / 19.5)
    rating = voice_rating(0.0, 0.02, g711)
    assert rating.ie_eff == pytest.approx(190 / 27.1)
    assert rating.r == pytest.approx(e_model().r - 190 / 27.1, abs=1e-9)


def test_opus_and_untabulated_combinations_are_refused_naming_the_codec():
    for args in (("opus",), ("g729a", True, False), ("g711", True, True)):
        with pytest.raises(QualityModelInvalid, match=r"^codec: no ITU-T G.113") as exc:
            codec_impairment(*args)
        assert exc.value.field == "codec"


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"mouth_to_ear_delay_ms": -1.0, "loss_fraction": 0.0}, "mouth_to_ear_delay_ms"),
    ({"mouth_to_ear_delay_ms": 10.0, "loss_fraction": 1.5}, "loss_fraction"),
    ({"mouth_to_ear_delay_ms": math.nan, "loss_fraction": 0.0}, "mouth_to_ear_delay_ms"),
    ({"mouth_to_ear_delay_ms": 10.0, "loss_fraction": 0.1, "burst_ratio": 0.0}, "burst_r"),
])
def test_bad_input_is_refused_naming_the_field(kwargs, field):
    with pytest.raises(QualityModelInvalid) as exc:
        voice_rating(impairment=codec_impairment("g711"), **kwargs)
    assert exc.value.field == field and str(exc.value).startswith(f"{field}: ")


def test_mos_from_r_annex_b():
    assert mos_from_r(-5) == 1.0 and mos_from_r(120) == 4.5
    assert mos_from_r(0) == 1.0
    assert mos_from_r(3.0) == 1.0  # the cubic gives 1 + 0.105 − 3·57·97·7e-6 = 0.9889: held at the floor
    assert mos_from_r(100) == pytest.approx(1 + 3.5)
    assert mos_from_r(60) == pytest.approx(1 + 2.1)  # the cubic term vanishes at 60
    assert mos_from_r(80) == pytest.approx(1 + 2.8 + 80 * 20 * 20 * 7e-6)


@settings(max_examples=150, deadline=None)
@given(d1=st.floats(5, 2000), d2=st.floats(5, 2000), loss=st.floats(0, 0.3))
def test_rating_does_not_rise_with_delay(d1, d2, loss):
    """Above 5 ms every delay term grows with the delay. (Below, G.107's talker echo term is slightly
    negative between T = 1 ms, where it starts, and about 4 ms: the model's own shape, not tested here.)"""
    lo, hi = sorted((d1, d2))
    imp = codec_impairment("g711")
    assert voice_rating(hi, loss, imp).r <= voice_rating(lo, loss, imp).r + 1e-9


@settings(max_examples=150, deadline=None)
@given(l1=st.floats(0, 1), l2=st.floats(0, 1), delay=st.floats(0, 1000), burst=st.floats(1, 8),
       codec=st.sampled_from([("g711", True, False), ("g711", False, False), ("g729a", True, True)]))
def test_rating_does_not_rise_with_loss_and_mos_stays_in_range(l1, l2, delay, burst, codec):
    lo, hi = sorted((l1, l2))
    imp = codec_impairment(*codec)
    a, b = voice_rating(delay, lo, imp, burst), voice_rating(delay, hi, imp, burst)
    assert b.r <= a.r + 1e-9
    assert imp.ie <= b.ie_eff
    # random loss (BurstR 1) impairs at most 95, the rating scale's top (bursty loss may pass it: eq. 7-29 is not capped)
    assert voice_rating(delay, hi, imp).ie_eff <= 95 + 1e-9
    assert 1.0 <= b.mos <= 4.5 and 1.0 <= a.mos <= 4.5
    # burstier loss of the same amount impairs at least as much
    assert voice_rating(delay, hi, imp, burst + 1).r <= b.r + 1e-9


@settings(max_examples=100, deadline=None)
@given(r1=st.floats(-20, 120), r2=st.floats(-20, 120))
def test_mos_does_not_fall_as_r_rises(r1, r2):
    lo, hi = sorted((r1, r2))
    assert mos_from_r(lo) <= mos_from_r(hi) + 1e-12


def test_wire_rates_by_hand():
    # G.711, 20 ms: 160 bytes of payload + 40 of IPv4/UDP/RTP = 200 bytes every 20 ms = 80 kbit/s
    assert wire_rate_kbps("g711") == pytest.approx(80.0)
    # 10 ms: 80 + 40 = 120 bytes every 10 ms = 96 kbit/s
    assert wire_rate_kbps("g711", 10.0) == pytest.approx(96.0)
    # G.729A, 20 ms: 20 + 40 = 60 bytes every 20 ms = 24 kbit/s
    assert wire_rate_kbps("g729a") == pytest.approx(24.0)
    # Opus at 32 kbit/s, 20 ms: 80 + 40 = 120 bytes every 20 ms = 48 kbit/s; IPv6 headers (60): 56 kbit/s
    assert wire_rate_kbps("opus", 20.0, 32.0) == pytest.approx(48.0)
    assert wire_rate_kbps("opus", 20.0, 32.0, header_bytes=60) == pytest.approx(56.0)


@pytest.mark.parametrize(("args", "kwargs", "field"), [
    (("opus",), {}, "bitrate_kbps"), (("g711",), {"bitrate_kbps": 32.0}, "bitrate_kbps"),
    (("g711", 0.0), {}, "packet_interval_ms"), (("g729a", 15.0), {}, "packet_interval_ms"),
    (("amr",), {}, "codec"),
])
def test_wire_rate_refuses_bad_input_naming_the_field(args, kwargs, field):
    with pytest.raises(QualityModelInvalid) as exc:
        wire_rate_kbps(*args, **kwargs)
    assert exc.value.field == field


# --- RFC 3550 §6.4.1 / Appendix A.8 --------------------------------------------------------------------------
#: a recorded G.711 stream: sent every 20 ms, arrivals with a varying one-way delay (seconds)
SEND_S = [0.000, 0.020, 0.040, 0.060, 0.080, 0.100, 0.120, 0.140, 0.160, 0.180]
ARRIVAL_S = [0.0500, 0.0720, 0.0890, 0.1130, 0.1300, 0.1515, 0.1750, 0.1890, 0.2120, 0.2305]


def _rfc3550_jitter(send: list[float], arrival: list[float]) -> list[float]:
    """The RFC's estimator as its text states it: D(i-1,i) = (Rj - Ri) - (Sj - Si); J += (|D| - J)/16."""
    out, j = [0.0], 0.0
    for k in range(1, len(send)):
        d = (arrival[k] - arrival[k - 1]) - (send[k] - send[k - 1])
        j = j + (abs(d) - j) / 16
        out.append(j)
    return out


def test_jitter_follows_rfc_3550_on_recorded_arrivals():
    got = interarrival_jitter_s(SEND_S, ARRIVAL_S)
    assert got.tolist() == pytest.approx(_rfc3550_jitter(SEND_S, ARRIVAL_S), abs=1e-15)
    # the first two steps by hand: transits 50, 52, 49 ms → |D| 2 ms, 3 ms
    assert got[1] == pytest.approx(0.002 / 16)
    assert got[2] == pytest.approx(0.002 / 16 + (0.003 - 0.002 / 16) / 16)


@settings(max_examples=100, deadline=None)
@given(delay=st.floats(0, 5), n=st.integers(1, 50), spacing=st.floats(1e-4, 1))
def test_constant_delay_has_no_jitter(delay, n, spacing):
    send = [k * spacing for k in range(n)]
    assert max(interarrival_jitter_s(send, [s + delay for s in send])) == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(delays=st.lists(st.floats(0, 2), min_size=2, max_size=60), shift=st.floats(-10, 10))
def test_jitter_is_bounded_by_the_largest_delay_step_and_shift_free(delays, shift):
    send = [0.02 * k for k in range(len(delays))]
    arrival = [s + d for s, d in zip(send, delays)]
    j = interarrival_jitter_s(send, arrival)
    steps = [abs(b - a) for a, b in zip(delays, delays[1:])]
    assert (j >= 0).all() and j.max() <= max(steps) + 1e-12
    assert interarrival_jitter_s(send, [a + shift for a in arrival]) == pytest.approx(j, abs=1e-9)


def test_jitter_refuses_mismatched_or_missing_times():
    with pytest.raises(QualityModelInvalid) as exc:
        interarrival_jitter_s([0.0, 0.02], [0.05])
    assert exc.value.field == "arrival_s"
    with pytest.raises(QualityModelInvalid) as exc:
        interarrival_jitter_s([0.0, 0.02], [0.05, math.nan])
    assert exc.value.field == "arrival_s"


def test_parameters_default_to_g107_table_3():
    p = EModelParameters()
    assert (p.slr_db, p.rlr_db, p.stmr_db, p.lstr_db, p.ds, p.dr, p.telr_db, p.wepl_db) == (8, 2, 15, 18, 3, 3, 65, 110)
    assert (p.t_ms, p.tr_ms, p.ta_ms, p.qdu, p.ie, p.ppl_pct, p.burst_r, p.a) == (0, 0, 0, 1, 0, 0, 1, 0)
    assert (p.nc_dbm0, p.nfor_dbmp, p.ps_dba, p.pr_dba, p.st, p.mt_ms) == (-70, -64, 35, 35, 1, 100)


def test_the_rate_a_flow_offers():
    from subflow.results.voice import flow_rate_mbps
    from subflow.scenario.document import Flow

    def flow(**kw):
        return Flow.model_validate({"id": "f", "src": "a", "dst": "b", **kw})

    assert flow_rate_mbps(flow()) is None  # bulk tcp
    assert flow_rate_mbps(flow(rate_mbps=3.0)) == 3.0
    assert flow_rate_mbps(flow(kind="udp", rate_mbps=1.5)) == 1.5
    assert flow_rate_mbps(flow(kind="voice")) == pytest.approx(0.080)  # G.711, 20 ms: 80 kbit/s
    # G.729A every 40 ms: 40 + 40 bytes per 40 ms = 16 kbit/s
    assert flow_rate_mbps(flow(kind="voice", voice={"codec": "g729a", "packet_interval_ms": 40})) == pytest.approx(0.016)
    assert flow_rate_mbps(flow(kind="voice", voice={"codec": "opus", "opus_bitrate_kbps": 32})) == pytest.approx(0.048)
    assert flow_rate_mbps(flow(kind="video", video={"bitrate_mbps": 4.0})) == 4.0

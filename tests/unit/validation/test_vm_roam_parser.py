"""The VM roam job's parser on one recorded run (``data/vm_roam``: files the job sent back from a Debian VM,
mac80211_hwsim, hostapd 2.10, wpa_supplicant 2.10, under TCG). Expected values read off the files by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from subflow.errors import VmError
from subflow_testbeds.vm.wifi_roam import parse_roam

DATA = Path(__file__).parent / "data" / "vm_roam"


def files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in DATA.iterdir()}


def test_times_and_access_points_are_read_from_the_logs():
    r = parse_roam(files())
    assert (r.ap0_bssid, r.ap1_bssid) == ("02:00:00:00:00:00", "02:00:00:00:01:00")
    assert r.first_bssid == "02:00:00:00:00:00" and r.final_bssid == "02:00:00:00:01:00"
    # sta.log: CTRL-EVENT-CONNECTED at 1795858581.169042, wpa_supplicant started at 1795858576.722335830 (times)
    assert r.association_s == pytest.approx(581.169042 - 576.722335830, abs=1e-6)
    # "SME: Trying to authenticate with 02:00:00:00:00:00" at 581.094344
    assert r.first_join_s == pytest.approx(581.169042 - 581.094344, abs=1e-6)
    # wpa_cli roam at 598.864475200, connected to ap1 at 599.161174, "Trying to authenticate" with it at 599.124510
    assert r.roam_s == pytest.approx(599.161174 - 598.864475200, abs=1e-6)
    assert r.roam_join_s == pytest.approx(599.161174 - 599.124510, abs=1e-6)
    assert r.roam_at_s == pytest.approx(598.864475200 - 593.719457180, abs=1e-6)


def test_the_flow_around_the_roam():
    r = parse_roam(files())
    assert r.interval_s == pytest.approx(0.25, abs=0.05)
    assert len(r.throughput_mbps) == 48
    # iperf3.json: intervals 22-24 (5.50-6.25 s) carried 0 bytes; the one at 6.25 s 230.6 Mbit/s
    assert r.zero_after_roam_s == pytest.approx(6.2514 - 5.501223, abs=1e-3)
    assert dict(r.throughput_mbps)[6.2514] == pytest.approx(230.567, abs=1e-3)
    assert r.mean_before_mbps > 150 and r.mean_after_mbps > 150


def test_a_run_without_the_roam_is_an_error_naming_what_is_missing():
    f = files()
    f["sta.log"] = b"\n".join(line for line in f["sta.log"].splitlines() if b"02:00:00:00:01:00 completed" not in line)
    with pytest.raises(VmError, match="no CTRL-EVENT-CONNECTED to ap1"):
        parse_roam(f)
    f = files()
    del f["iperf3.json"]
    with pytest.raises(VmError, match="no iperf3.json"):
        parse_roam(f)

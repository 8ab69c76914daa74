"""A real 802.11 association and roam in the testbed VM, measured, beside Subflow's handover model.

The job (``wifi_roam.sh``): ``mac80211_hwsim`` with three radios, two hostapd access points (open network,
channels 1 and 6, bridged to the iperf3 server), one station under wpa_supplicant in its own network namespace.
The station associates with ``ap0``, scans once ``ap1`` is up, sends bulk TCP for ``duration_s``, and
``roam_at_s`` into the flow roams to ``ap1`` (``wpa_cli roam``: authentication and reassociation with a BSS it
has scanned, no new scan). :func:`parse_roam` reads the times from wpa_supplicant's timestamped log (``-t``)
and the flow from iperf3's JSON (0.25 s intervals).

The model's figures (:func:`subflow.radio.association.handover_timing` for an 802.11g access point with the
scenario's default handover settings) are printed beside the measurement: its ``join_s`` (authentication and
association frames' airtime) against the measured join, its active scan over the 2.4 GHz channels against the
measured first association. ``mac80211_hwsim`` has no airtime of its own (frames cross at once, no contention)
and the VM may run under software emulation, so the measured times are the 802.11 state machines' and the
host's, not a radio's: the test checks that the roam happens and the flow resumes, and reports the times.

References
----------
.. [1] IEEE 802.11-2020, §11.1.4 (scanning), §11.3 (authentication, association, reassociation).
.. [2] wpa_supplicant ``wpa_cli roam <BSSID>`` (``wpa_supplicant/ctrl_iface.c``: ``wpa_supplicant_ctrl_iface_roam``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from subflow.radio.association import handover_timing
from subflow.scenario.document import AccessPointNode, load_scenario

from subflow_engines.vm.image import VmImage
from subflow.errors import VmError
from subflow_engines.vm.qemu import run_job

HERE = Path(__file__).resolve().parent
_EVENT = re.compile(r"^(\d+\.\d+): wlan2: (.*)$", re.M)
_CONNECTED = re.compile(r"CTRL-EVENT-CONNECTED - Connection to ([0-9a-f:]{17}) completed")
_TRYING = re.compile(r"Trying to associate with (?:SSID '[^']*' )?([0-9a-f:]{17})|Trying to authenticate with "
                     r"([0-9a-f:]{17})")


@dataclass(frozen=True)
class RoamReport:
    """What the VM measured (times in s; rates in Mbit/s).

    Attributes
    ----------
    first_bssid, final_bssid, ap0_bssid, ap1_bssid : str
        Where the station associated first and where it was at the end; the two access points.
    association_s : float
        From wpa_supplicant's start to its first ``CTRL-EVENT-CONNECTED`` (scan, authentication, association).
    first_join_s : float
        Of which from its first "Trying to authenticate/associate" to that event (no scan).
    roam_s : float
        From ``wpa_cli roam`` to ``CTRL-EVENT-CONNECTED`` with ``ap1``.
    roam_join_s : float | None
        Of which from "Trying to authenticate/associate with ap1" to that event.
    interval_s : float
        iperf3's reporting interval.
    throughput_mbps : list of (t_s, Mbit/s)
        The flow per interval, ``t_s`` the interval's start from the flow's start.
    roam_at_s : float
        When the roam was asked, from the flow's start.
    mean_before_mbps, mean_after_mbps : float
        The flow's mean over the intervals wholly before the roam, and from the first interval after the roam
        that carried data to the end.
    zero_after_roam_s : float
        Time at zero (intervals under 1 kbit/s) from the roam on.
    model_join_s, model_scan_s : float
        :func:`~subflow.radio.association.handover_timing` of an 802.11g access point under the default
        handover settings: the join frames' airtime, and the scan.
    wall_s : float
        The VM's wall time, boot included.
    accel : str
        ``kvm`` or ``tcg``.
    """

    first_bssid: str
    final_bssid: str
    ap0_bssid: str
    ap1_bssid: str
    association_s: float
    first_join_s: float
    roam_s: float
    roam_join_s: float | None
    interval_s: float
    throughput_mbps: list[tuple[float, float]]
    roam_at_s: float
    mean_before_mbps: float
    mean_after_mbps: float
    zero_after_roam_s: float
    model_join_s: float
    model_scan_s: float
    wall_s: float
    accel: str

    def summary(self) -> str:
        """One paragraph for a test's or a benchmark's output."""
        return (f"802.11 in the VM ({self.accel}, {self.wall_s:.0f} s wall): first association {self.association_s:.3f} s "
                f"(join {self.first_join_s * 1000:.1f} ms) against the model's scan {self.model_scan_s:.3f} s + join "
                f"{self.model_join_s * 1000:.2f} ms; roam to ap1 {self.roam_s * 1000:.1f} ms (join "
                f"{(self.roam_join_s or 0.0) * 1000:.1f} ms) against the model's join {self.model_join_s * 1000:.2f} ms; "
                f"flow {self.mean_before_mbps:.1f} Mbit/s before the roam, {self.mean_after_mbps:.1f} after, "
                f"{self.zero_after_roam_s:.2f} s at zero from the roam on")


def _model() -> tuple[float, float]:
    """(join_s, scan_s) of the handover model for an 802.11g access point with the default settings."""
    doc = {"name": "m", "nodes": [{"id": "ap", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 100.0}],
           "links": [], "flows": []}
    scenario = load_scenario(doc)
    ap = next(n for n in scenario.nodes if isinstance(n, AccessPointNode))
    timing = handover_timing(ap, scenario.radio.handover)
    return timing.join_s, timing.scan_s


def _times(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def parse_roam(files: dict[str, bytes], wall_s: float = 0.0, accel: str = "tcg") -> RoamReport:
    """Read a finished roam job's files (``times``, ``sta.log``, ``iperf3.json``, ``link.txt``).

    Raises
    ------
    VmError
        If a file is missing, iperf3 failed, or the log lacks the association or the roam (naming which).
    """
    for name in ("times", "sta.log", "iperf3.json", "link.txt"):
        if name not in files:
            raise VmError(f"the roam job sent no {name}")
    times = _times(files["times"].decode())
    if times.get("iperf3_rc") != "0":
        raise VmError(f"iperf3 failed (rc {times.get('iperf3_rc')}): {files.get('iperf3.err', b'').decode()[-500:]}")
    events = [(float(t), msg) for t, msg in _EVENT.findall(files["sta.log"].decode())]
    t_start, t_roam = float(times["t_wpa_start"]), float(times["t_roam"])
    connected = [(t, m.group(1)) for t, msg in events if (m := _CONNECTED.search(msg))]
    trying = [(t, next(g for g in m.groups() if g)) for t, msg in events if (m := _TRYING.search(msg))]
    if not connected:
        raise VmError("wpa_supplicant never reported CTRL-EVENT-CONNECTED")
    t_first, first_bssid = connected[0]
    t_first_try = next((t for t, _ in trying if t <= t_first), t_start)
    ap1 = times["bssid1"]
    after = [(t, b) for t, b in connected if t >= t_roam and b == ap1]
    if not after:
        raise VmError(f"no CTRL-EVENT-CONNECTED to ap1 ({ap1}) after the roam; link: {files['link.txt'].decode()}")
    t_roamed = after[0][0]
    t_roam_try = next((t for t, b in trying if t_roam <= t <= t_roamed and b == ap1), None)
    link = re.search(r"Connected to ([0-9a-f:]{17})", files["link.txt"].decode())
    report = json.loads(files["iperf3.json"])
    if "error" in report:
        raise VmError(f"iperf3: {report['error']}")
    intervals = [(iv["sum"]["start"], iv["sum"]["end"], iv["sum"]["bits_per_second"] / 1e6)
                 for iv in report["intervals"]]
    roam_at = t_roam - float(times["t_flow_start"])
    before = [r for s, e, r in intervals if e <= roam_at]
    from_roam = [(s, e, r) for s, e, r in intervals if e > roam_at]
    first_data = next((i for i, (_, _, r) in enumerate(from_roam) if r >= 1e-3 and from_roam[i][0] >= roam_at), None)
    resumed = [r for _, _, r in from_roam[first_data:]] if first_data is not None else []
    join_s, scan_s = _model()
    return RoamReport(
        first_bssid=first_bssid, final_bssid=link.group(1) if link else "", ap0_bssid=times["bssid0"], ap1_bssid=ap1,
        association_s=t_first - t_start, first_join_s=t_first - t_first_try, roam_s=t_roamed - t_roam,
        roam_join_s=None if t_roam_try is None else t_roamed - t_roam_try,
        interval_s=intervals[0][1] - intervals[0][0] if intervals else 0.0,
        throughput_mbps=[(s, r) for s, _, r in intervals], roam_at_s=roam_at,
        mean_before_mbps=sum(before) / len(before) if before else 0.0,
        mean_after_mbps=sum(resumed) / len(resumed) if resumed else 0.0,
        zero_after_roam_s=sum(e - s for s, e, r in from_roam if r < 1e-3),
        model_join_s=join_s, model_scan_s=scan_s, wall_s=wall_s, accel=accel)


def run_roam(image: VmImage, duration_s: float = 12.0, roam_at_s: float = 5.0, timeout_s: float = 600.0) -> RoamReport:
    """Boot ``image``, run the roam job and parse it.

    Raises
    ------
    VmError
        If the VM does not boot, the job fails (its console tail and logs in the message) or its output lacks
        the association, the roam or the flow.
    """
    params = f"DURATION_S={duration_s:g}\nROAM_AT_S={roam_at_s:g}\n".encode()
    result = run_job(image, (HERE / "wifi_roam.sh").read_text(), {"params.sh": params}, timeout_s=timeout_s)
    if result.rc != 0:
        logs = "\n".join(f"--- {n}\n{d.decode(errors='replace')[-1500:]}" for n, d in result.files.items())
        tail = "\n".join(result.console.splitlines()[-30:])
        raise VmError(f"the roam job failed (rc {result.rc}); console:\n{tail}\n{logs}")
    return parse_roam(result.files, result.wall_s, result.accel)

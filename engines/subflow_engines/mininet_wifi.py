"""Engine ``mininet-wifi``: run a scenario on a Mininet-WiFi testbed where the host has one.

The translation of a plan into a standalone Mininet-WiFi script is
:func:`subflow.io.exports.generate_script` (see that module for the mapping);
this module detects Mininet-WiFi (``mac80211_hwsim``, ``hostapd``, ``mn_wifi``),
runs the script and turns the iperf3 JSON it prints into the engine output
(:func:`output`). A flow whose iperf3 failed is an error naming the flow
(:class:`subflow.errors.EngineFailed`), never a run of zeros.

Reference: Fontes et al., "Mininet-WiFi: Emulating software-defined wireless
networks", CNSM 2015.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from subflow.errors import EngineFailed, VmError
from subflow.io.exports import (  # noqa: F401
    RESULT_BEGIN, RESULT_END, generate_script, ns2_setdest, script_for,
)
from subflow.results.document import EngineOutput, FlowResult, SubflowResult
from subflow.runplan.capabilities import (
    Honours, ISL_FIELDS, PLANNED, RADIO_FIELDS, Refuses, flow_kind_fields, queueing_fields, link_budget_fields,
)
from subflow.runplan.document import RunPlan
from subflow.runplan.finish import longest_finish_s

from subflow_engines.linux import iperf3
from subflow_engines.linux.commands import EngineCannotRun
from subflow_engines.vm.mininet_wifi import run_scripts, sources_from_env

NAME = "mininet-wifi"
DESCRIPTION = (
    "Mininet-WiFi testbed (mac80211_hwsim stations, OVS access points, TCLink wired links, "
    "iperf3 traffic); runs where Mininet-WiFi is installed, and exports standalone scripts."
)

_NO_TRANSPORT = "the generated testbed runs the kernel's TCP defaults; only congestion_control is applied"

#: the scenario fields this engine honours (:mod:`subflow.runplan.capabilities`); see :func:`subflow.io.exports.generate_script`
FIELDS = {
    **PLANNED,
    "Scenario.capture": Refuses("the generated script records no packets: packet capture needs the linux engine "
                                "(or tcpdump run by hand in the exported testbed)"),
    "SatelliteNode.ephemeris": Refuses("the generated script gives each link a fixed TCLink delay and never takes "
                                       "it down: orbits (time-varying SATCOM delay, visibility, handover) are not "
                                       "exported"),
    **{f: Refuses("the generated script gives each link a fixed TCLink delay and never takes it down: "
                  "inter-satellite links (delay from the range, down when the Earth blocks them) are not exported")
       for f in ISL_FIELDS},
    **link_budget_fields(Refuses, "the generated script gives each link a fixed TCLink bw: a SATCOM link budget's "
                                  "capacity changes (MODCOD per time step) are not exported"),
    "AccessPointNode.association_delay_s": Refuses("Mininet-WiFi's own association timing applies"),
    **{f: Refuses("Mininet-WiFi's own association timing applies (wpa_supplicant's beacon loss and scanning)")
       for f in ("AccessPointNode.beacon_interval_ms", "HandoverSettings.missed_beacons", "HandoverSettings.scan",
                 "HandoverSettings.scan_channels", "HandoverSettings.channel_dwell_ms",
                 "HandoverSettings.probe_wait_ms", "HandoverSettings.scan_results_max_age_s")},
    "ControllerSettings.interval_s": Refuses("the generated testbed has no SDN controller installing rate limits"),
    "ControllerSettings.notification_delay_s": Refuses("the generated testbed has no SDN controller"),
    "Link.bandwidth_mbps": Honours("TCLink bw"),
    "Link.delay_ms": Honours("TCLink delay"),
    "Link.loss": Honours("TCLink loss"),
    "Link.jitter_ms": Honours("TCLink jitter (netem)"),
    "Link.queue_packets": Honours("TCLink max_queue_size"),
    "AccessPointNode.wireless_bandwidth_mbps": Refuses("the emulated 802.11 PHY sets the air rate"),
    "AccessPointNode.wireless_delay_ms": Honours("netem delay on the stations' wlan interfaces"),
    "AccessPointNode.wireless_loss": Honours("netem loss on the stations' wlan interfaces"),
    "AccessPointNode.queue_packets": Refuses("the emulated 802.11 interfaces keep their own queues"),
    "AccessPointNode.rate_table": Refuses("the emulated 802.11 PHY sets the air rate"),
    "RateStep.distance_m": Refuses("the emulated 802.11 PHY sets the air rate"),
    "RateStep.bandwidth_mbps": Refuses("the emulated 802.11 PHY sets the air rate"),
    "Position.alt_m": Honours("z of the node's Mininet-WiFi position (its distances are 3-D)"),
    "Waypoint.alt_m": Honours("z of the replayed mobility legs"),
    "LoiterMobility.alt_m": Honours("z of the replayed mobility legs"),
    "AccessPointNode.mobility": Honours("replayed by the script (setPosition every 0.1 s) like a station's"),
    "Flow.rate_mbps": Honours("iperf3 -b, and held to the rate at every instant by an HTB class on an IFB device "
                              "at the source, all subflows together (subflow.runplan.ratecap)"),
    "Flow.size_bytes": Refuses("the generated script runs iperf3 for the flow's duration (-t), not a byte count"),
    **flow_kind_fields(),
    **queueing_fields(),
    "TransportSettings.mss_bytes": Refuses(_NO_TRANSPORT),
    "TransportSettings.initial_cwnd_packets": Refuses(_NO_TRANSPORT),
    "TransportSettings.min_rto_s": Refuses(_NO_TRANSPORT),
    "TransportSettings.rto_form": Refuses("the hosts' kernels compute their RTO in Linux's form (tcp_set_rto)"),
    "TransportSettings.max_rto_s": Refuses(_NO_TRANSPORT),
    "TransportSettings.initial_rto_s": Refuses(_NO_TRANSPORT),
    "TransportSettings.congestion_control": Honours("tcp_congestion_control sysctl (newreno -> reno)"),
    "TransportSettings.rbuf_bytes": Refuses(_NO_TRANSPORT),
    **{f: Refuses("not mapped to Mininet-WiFi") for f in RADIO_FIELDS},
    "AccessPointNode.radio": Honours("txpower, antennaGain, antennaHeight, channel and mode of the access point; "
                                     "its range is Mininet-WiFi's from its propagation model"),
    "StationNode.radio": Honours("txpower, antennaGain and antennaHeight of the station"),
    "NodeRadio.tx_power_dbm": Honours("txpower (whole dBm; other values are refused)"),
    "NodeRadio.antenna_gain_dbi": Honours("antennaGain (whole dBi; other values are refused)"),
    "NodeRadio.antenna_height_m": Honours("antennaHeight"),
    "NodeRadio.frequency_mhz": Honours("the access point's channel (a frequency that is no channel's centre is "
                                      "refused)"),
    "NodeRadio.channel": Honours("the access point's channel"),
    "NodeRadio.phy": Honours("the access point's mode"),
    "NodeRadio.channel_width_mhz": Refuses("the script configures 20 MHz channels"),
    "RadioSettings.propagation": Honours("setPropagationModel (with a node radio)"),
    "PropagationSettings.model": Honours("setPropagationModel(model='friis'|'logDistance'); two_ray is refused "
                                         "(Mininet-WiFi's twoRayGround takes the channel width as its frequency)"),
    "PropagationSettings.exponent": Honours("setPropagationModel(exp=)"),
    "PropagationSettings.system_loss_db": Honours("setPropagationModel(sL=10^(dB/10))"),
    "PropagationSettings.reference_distance_m": Refuses("Mininet-WiFi's reference distance is 1 m"),
    "PropagationSettings.reference_loss_db": Refuses("Mininet-WiFi's reference loss is Friis at 1 m"),
    "PropagationSettings.noise_floor_dbm": Refuses("Mininet-WiFi's range ends at its noise_th threshold"),
    "RadioSettings.rate_selection": Refuses("the kernel's rate control (minstrel) picks the MCS"),
    "AccessPointNode.uplink": Honours("net.addLink(<uplink>, <ap>, cls=_4address) with config4addr=True: a "
                                      "4-address client of its uplink, bridged into the radio segment; joined once "
                                      "when the network is built (the scenario's follows range over time, stated "
                                      "in the script); an uplink on another channel, PHY or radio network is "
                                      "refused (the client shares the access point's one-channel radio)"),
    "RadioSettings.adhoc_links": Honours("net.addLink(<sta>, cls=adhoc, intf=<sta>-wlan<N>, ...): every station "
                                         "with a radio joins one IBSS on an extra wlan, in range by Mininet-WiFi's "
                                         "propagation model, each direction by its sender's power (HT20 for n "
                                         "and ac: iw has no VHT for an IBSS); routes of an "
                                         "adhoc:<a>~<b> hop go via the peer's ad-hoc address; radios on several "
                                         "channels or PHYs are refused"),
}

_available: dict[str, Any] | None = None


def detect() -> dict[str, Any]:
    """What Mininet-WiFi needs, found on this host (cached): ``mac80211_hwsim`` (loaded or
    loadable), ``hostapd``, the ``mn_wifi`` package, root."""
    global _available
    if _available is None:
        hwsim = Path("/sys/module/mac80211_hwsim").exists()
        if not hwsim and shutil.which("modinfo"):
            try:
                hwsim = subprocess.run(["modinfo", "mac80211_hwsim"], capture_output=True, timeout=5).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                hwsim = False
        _available = {
            "mac80211_hwsim": hwsim,
            "hostapd": shutil.which("hostapd") is not None,
            "mn_wifi": importlib.util.find_spec("mn_wifi") is not None,
            "root": os.geteuid() == 0,
            "iperf3": shutil.which("iperf3") is not None,
        }
    return _available


def available() -> bool:
    """True when every requirement of :func:`detect` is met here, or the Debian VM can run Mininet-WiFi
    (:func:`vm_runner`)."""
    return all(detect().values()) or vm_runner() is not None


def vm_runner() -> tuple[dict[str, Path], Path] | None:
    """The source trees and wheels the Debian VM builds Mininet-WiFi from
    (:func:`subflow_engines.vm.mininet_wifi.sources_from_env`: ``SUBFLOW_MININET_WIFI_SOURCES``) when this host
    lacks Mininet-WiFi but has what boots the VM (root, ``qemu-system-x86_64``, ``mmdebstrap``, ``cpio``); else
    None."""
    if all(detect().values()) or os.geteuid() != 0:
        return None
    if not all(shutil.which(tool) for tool in ("qemu-system-x86_64", "mmdebstrap", "cpio")):
        return None
    return sources_from_env()


def supports() -> dict[str, Any]:
    """The ``supports`` entry of ``GET /capabilities``."""
    return {
        "link_parameters": ["bandwidth_mbps", "delay_ms", "jitter_ms", "loss", "queue_packets"],
        "mobility": "the planned trajectory replayed by the script (setPosition every 0.1 s on the run's clock), "
        "or setMobilityModel(seed=) for random walks",
        "association": "Mininet-WiFi's own (ac_method = radio.association_policy); association_delay_s not imposed; "
        "routes and MPTCP endpoints follow the plan's segments, a wlan's once Mininet-WiFi reports it associated",
        "export": "standalone Python script (generate_script); ns-2 setdest trace (ns2_setdest)",
        "real_time": True,
        "host": detect(),
        "debian_vm": vm_runner() is not None,
    }


def run(
    plan: RunPlan,
    on_progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> EngineOutput:
    """Run ``plan`` on Mininet-WiFi (a subprocess executing the generated script), here or, on a host without
    ``mac80211_hwsim``, in the Debian VM (:func:`vm_runner`; each run builds Mininet-WiFi there first, minutes under
    software emulation).

    Raises
    ------
    EngineCannotRun
        If Mininet-WiFi is not available on this host (naming what is missing).
    EngineFailed
        If the script's run fails or times out, or a flow's iperf3 failed (:func:`output`).
    """
    if not available():
        missing = [k for k, v in detect().items() if not v]
        raise EngineCannotRun(f"engine mininet-wifi: this host lacks {', '.join(missing)} (or set "
                              "SUBFLOW_MININET_WIFI_SOURCES to run it in the Debian VM)")
    script = generate_script(plan)
    longest = max([fp.stop_s for fp in plan.flows] + [plan.duration_s])
    vm = vm_runner()
    if vm is not None:
        try:
            ran = run_scripts(*vm, {"scenario": script}, script_timeout_s=longest + longest_finish_s() + 120)["scenario"]
        except VmError as exc:
            raise EngineFailed(NAME, f"the Debian VM: {exc}") from None
        out = output(plan, ran.stdout, ran.rc, ran.stderr)
        if on_progress is not None:
            on_progress(1.0)
        return out
    with tempfile.TemporaryDirectory(prefix="subflow-mnwifi-") as tmp:
        path = Path(tmp) / "scenario.py"
        path.write_text(script)
        try:
            proc = subprocess.run(["python3", str(path)], capture_output=True, text=True,
                                  timeout=longest + longest_finish_s() + 120)
        except subprocess.TimeoutExpired as exc:
            raise EngineFailed(NAME, f"the script's run timed out after {exc.timeout} s") from None
    out = output(plan, proc.stdout, proc.returncode, proc.stderr)
    if on_progress is not None:
        on_progress(1.0)
    return out


#: the most the script's run clock may fall behind real time, s: beyond it positions, routes and flow starts
#: were applied too late for the run to be the scenario (a starved VM under software emulation)
MAX_CLOCK_LAG_S = 2.0


def _stderr_note(text: object) -> str:
    """`` (stderr: …)`` with the last lines of an iperf3 process's standard error, or ``""`` when it said nothing."""
    if not isinstance(text, str) or not text.strip():
        return ""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " (stderr: " + " | ".join(lines[-3:])[-300:] + ")"


def _interruption(error: str | None) -> bool:
    """True for the error iperf3 writes into its report when it, or its peer, was stopped by SIGINT
    ("interrupt - the client has terminated", "the client has terminated"; iperf3 ``iperf_got_sigend``), or
    when the client was stopped during the end-of-test results exchange: the server then reads a short results
    message and reports "unable to receive results" (``IERECVRESULTS``, ``iperf_exchange_results`` in
    ``iperf_api.c``), after its intervals are complete."""
    return bool(error) and ("interrupt" in error or "has terminated" in error
                            or "unable to receive results" in error)


def output(plan: RunPlan, stdout: str, returncode: int = 0, stderr: str = "") -> EngineOutput:
    """The engine output from the generated script's standard output.

    Each flow's throughput is its iperf3 server's per-interval report, placed on the run clock at the
    client's launch time (``launched_s``).

    Parameters
    ----------
    plan : RunPlan
        The plan the script ran.
    stdout, stderr : str
        The script's output streams; ``stdout`` holds the JSON between ``SUBFLOW-RESULT`` markers.
    returncode : int
        The script's exit status (reported when the markers are missing).

    Returns
    -------
    EngineOutput

    Raises
    ------
    EngineFailed
        Naming the flow, when its iperf3 client reports an error (e.g. "Network is unreachable"), its
        server report is unreadable (with the tail of that iperf3's standard error, e.g. a missing
        ``mptcpize``), holds an error or no interval (an iperf3 the script interrupted after its grace,
        :mod:`subflow.runplan.finish`, keeps its report: its roles are listed in the flow's ``iperf3``
        extra as ``interrupted``); naming no flow when the script printed no result or its clock fell
        more than :data:`MAX_CLOCK_LAG_S` behind real time.
    """
    if RESULT_BEGIN not in stdout or RESULT_END not in stdout:
        raise EngineFailed(NAME, f"the script printed no result (exit status {returncode}): {stderr[-500:]}")
    try:
        payload = json.loads(stdout.split(RESULT_BEGIN, 1)[1].split(RESULT_END, 1)[0])
    except json.JSONDecodeError as exc:
        raise EngineFailed(NAME, f"the script's result is not JSON ({exc.msg})") from None
    lag = float(payload.get("clock_lag_s") or 0.0)
    if lag > MAX_CLOCK_LAG_S:
        raise EngineFailed(NAME, f"the script's clock fell {lag:.1f} s behind real time (the host, or the VM under "
                                 f"software emulation, was overloaded; at most {MAX_CLOCK_LAG_S:g} s is accepted): "
                                 "moves, routes and flow starts were applied late, so the figures are not the "
                                 "scenario's")
    interrupted = {(fid, role) for fid, role in payload.get("interrupted", [])}
    n_bins = max(1, int(math.ceil(plan.duration_s / plan.interval_s - 1e-9)))
    t_s = [round(k * plan.interval_s, 9) for k in range(n_bins)]
    flows = []
    for fp in plan.flows:
        raw = payload.get("flows", {}).get(fp.id)
        if not isinstance(raw, dict):
            raise EngineFailed(NAME, "the script reported nothing for this flow", fp.id)
        reports = {}
        for role in ("client", "server"):  # the client's own error first: it says why the server had nothing
            said = _stderr_note(raw.get(f"{role}_stderr"))
            try:
                reports[role] = iperf3.parse(raw.get(role) or "")
            except iperf3.Iperf3ParseError as exc:
                raise EngineFailed(NAME, f"iperf3 {role} report unreadable: {exc}{said}", fp.id) from None
            stopped = any(f == fp.id for f, _ in interrupted) and _interruption(reports[role].error)
            if reports[role].error and not stopped:
                raise EngineFailed(NAME, f"iperf3 {role}: {reports[role].error}{said}", fp.id)
        server = reports["server"]
        if not server.intervals:
            raise EngineFailed(NAME, "iperf3 server report holds no interval (no data was received)", fp.id)
        thr = iperf3.timeline(server.intervals, plan.interval_s, n_bins,
                              payload.get("launched_s", {}).get(fp.id, fp.start_s))
        sub_id = fp.segments[0].subflows[0].id if fp.segments and fp.segments[0].subflows else f"{fp.id}/tcp"
        path = fp.segments[0].subflows[0].nodes if fp.segments and fp.segments[0].subflows else [fp.src, fp.dst]
        flows.append(FlowResult(id=fp.id, src=fp.src, dst=fp.dst, t_s=t_s, throughput_mbps=thr,
                                subflows=[SubflowResult(id=sub_id, path=path, t_s=t_s, throughput_mbps=thr)],
                                iperf3={"server": server.summary(), "client": reports["client"].summary(),
                                        "interrupted": sorted(r for f, r in interrupted if f == fp.id)}))
    return EngineOutput(engine=NAME, strategy=plan.strategy, flows=flows, events=[])

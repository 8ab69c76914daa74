"""Mininet-WiFi in the Debian VM (:mod:`subflow_engines.vm`): build it from the user's source trees and run scripts.

Mininet-WiFi, Mininet (2.3.1), wmediumd and mac80211_hwsim_mgmt do not come from a package registry, so the user
gives their source trees; the VM (the ``mininet-wifi`` flavour of :mod:`.image`: Debian's kernel with
``mac80211_hwsim``, hostapd, wpa_supplicant, Open vSwitch, mptcpize, iperf3, compilers and the Python packages
``mn_wifi`` imports) builds them (``mininet_wifi.sh``), starts Open vSwitch and runs each script as the
``mininet-wifi`` engine runs one on a host that has Mininet-WiFi (``python3 script.py``), sending back its
output. The engine uses this where the host has no ``mac80211_hwsim`` and ``SUBFLOW_MININET_WIFI_SOURCES`` names a
folder holding the trees (:func:`sources_from_env`); ``make mininet-wifi-testbed`` uses it to compare Mininet-WiFi
with the other engines (:mod:`subflow_testbeds.vm.mininet_wifi`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from subflow_engines.vm.image import ensure_image
from subflow.errors import VmError
from subflow_engines.vm.qemu import run_job

HERE = Path(__file__).resolve().parent
#: the source trees, by name (folders of ``SUBFLOW_MININET_WIFI_SOURCES``)
SOURCES = ("mininet", "mininet-wifi", "wmediumd", "hwsim_mgmt")


#: seconds each script gets beyond its own limit to build its network (Mininet-WiFi's nodes, radios, wmediumd, Open
#: vSwitch): about 100 s under software emulation on a busy host, before the script's clock starts
SETUP_S = 300.0

#: Python packages ``mn_wifi`` imports that Debian bookworm does not package; ``mn_wifi.net`` imports the module
#: ``FlightRadar24``, which FlightRadarAPI renamed in 1.6.0
WHEELS = ("FlightRadarAPI==1.5.3",)


@dataclass(frozen=True)
class ScriptRun:
    """One script's run in the VM: its exit code, standard output and error, and the gzipped record of its
    nodes' sockets, MPTCP endpoints and qdiscs when :func:`run_scripts` was asked for one (``record_s``)."""

    rc: int
    stdout: str
    stderr: str
    record: bytes | None = None


def _tar(tree: Path) -> bytes:
    """The source tree as a tar archive (its ``.git`` left out)."""
    if not tree.is_dir():
        raise FileNotFoundError(f"source tree {tree} is not a directory")
    with tempfile.TemporaryFile() as buf:
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(tree, arcname=".", filter=lambda ti: None if "/.git" in f"/{ti.name}" else ti)
        buf.seek(0)
        return buf.read()


def download_wheels(out: Path) -> Path:
    """``pip download`` :data:`WHEELS` (with their dependencies) for the VM's Python (Debian bookworm's 3.11.2) on
    x86-64 into ``out``.

    Raises
    ------
    subprocess.CalledProcessError
        If pip cannot download them.
    """
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(out), "--only-binary=:all:",
                    "--python-version", "3.11.2", "--platform", "manylinux2014_x86_64", "--implementation", "cp",
                    *WHEELS], check=True)
    return out


def run_scripts(sources: dict[str, Path], wheels: Path, scripts: dict[str, str], script_timeout_s: float = 600.0,
                timeout_s: float | None = None, record_s: float | None = None,
                record_nodes: tuple[str, ...] = ()) -> dict[str, ScriptRun]:
    """Boot the ``mininet-wifi`` VM, build the sources and run each script.

    Parameters
    ----------
    sources : dict
        :data:`SOURCES` name → source tree.
    wheels : Path
        A folder of wheels for the VM's Python (:func:`download_wheels`).
    scripts : dict
        Name (letters, digits, ``-``, ``_``) → script text (:func:`subflow.io.exports.generate_script`).
    script_timeout_s : float
        Limit of each script's run, s, after its network is built (which gets :data:`SETUP_S` more).
    timeout_s : float, optional
        Limit of the whole VM, s (default: 20 minutes for the build plus each script's limit).
    record_s : float, optional
        Record every ``record_s`` seconds, in each Mininet node's network namespace, ``ss -tani``, ``ss -Mni``,
        ``ip mptcp endpoint show``, ``ip mptcp limits``, ``ip -o link``, ``ip route show``, the MPTCP, ICMP and
        TCP retransmission counters (``nstat -as``), ``tc -s qdisc show`` and each wlan interface's
        ``iw dev <wlan> station dump`` (bit rates, signal, retries) (``mininet_wifi.sh``: a recorder started
        beside each script, so that the script's own clock is not slowed; each sample costs a few processes per
        node, so under software emulation a busy host stretches the interval): :attr:`ScriptRun.record`, a
        gzipped text of blocks ``@@ <epoch s> <node>`` each followed by ``## <command>`` sections. None: no
        record.
    record_nodes : tuple of str
        The Mininet nodes recorded (default: every node with its own network namespace).

    Returns
    -------
    dict
        Name → :class:`ScriptRun`.

    Raises
    ------
    VmError
        If the VM does not boot, a build step fails (the build log's tail in the message) or a script sends
        nothing back.
    FileNotFoundError
        If a source tree is missing.
    """
    missing = [s for s in SOURCES if s not in sources]
    if missing:
        raise FileNotFoundError(f"no source tree for {', '.join(missing)}")
    files = {f"src-{name}.tar": _tar(Path(sources[name])) for name in SOURCES}
    with tempfile.TemporaryFile() as buf:
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for whl in sorted(Path(wheels).glob("*.whl")):
                tar.add(whl, arcname=whl.name)
        buf.seek(0)
        files["wheels.tar"] = buf.read()
    for name, text in scripts.items():
        files[f"script-{name}.py"] = text.encode()
    if record_s is not None and not 0.1 <= record_s <= 60:
        raise ValueError(f"record_s={record_s}: between 0.1 and 60 s")
    if not all(re.fullmatch(r"[a-z]+[0-9]+", n) for n in record_nodes):
        raise ValueError(f"record_nodes={record_nodes!r}: Mininet node names (h1, sta2…)")
    files["params.sh"] = (f"SCRIPT_TIMEOUT_S={int(script_timeout_s + SETUP_S)}\n"
                          f"RECORD_S={'' if record_s is None else f'{record_s:g}'}\n"
                          f"RECORD_NODES='{' '.join(record_nodes)}'\n").encode()
    limit = timeout_s if timeout_s is not None else 1200.0 + len(scripts) * (script_timeout_s + SETUP_S + 60.0)
    result = run_job(ensure_image("mininet-wifi"), (HERE / "mininet_wifi.sh").read_text(), files, timeout_s=limit,
                     memory_mb=6144)
    if result.rc != 0:
        log = result.files.get("build.log", b"").decode(errors="replace")[-3000:]
        raise VmError(f"the Mininet-WiFi job failed (rc {result.rc}):\n{log}\n"
                      + "\n".join(result.console.splitlines()[-20:]))
    out = {}
    for name in scripts:
        if f"{name}.rc" not in result.files:
            raise VmError(f"script {name} sent nothing back; console:\n" + "\n".join(result.console.splitlines()[-30:]))
        out[name] = ScriptRun(rc=int(result.files[f"{name}.rc"].strip() or b"-1"),
                              stdout=result.files.get(f"{name}.out", b"").decode(errors="replace"),
                              stderr=result.files.get(f"{name}.err", b"").decode(errors="replace"),
                              record=result.files.get(f"{name}.rec.gz"))
    return out


def sources_from_env() -> tuple[dict[str, Path], Path] | None:
    """The source trees and wheels folder under ``SUBFLOW_MININET_WIFI_SOURCES`` (its folders :data:`SOURCES`, and
    ``wheels`` holding :func:`download_wheels`' files), or None when it is unset or lacks one of them."""
    base = os.environ.get("SUBFLOW_MININET_WIFI_SOURCES")
    if not base:
        return None
    root = Path(base)
    trees = {name: root / name for name in SOURCES}
    if not all(p.is_dir() for p in trees.values()) or not any((root / "wheels").glob("*.whl")):
        return None
    return trees, root / "wheels"

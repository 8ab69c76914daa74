"""Boot the testbed VM under QEMU with one job and collect what it printed and sent back.

A job is a shell script (``/subflow/job.sh`` in the VM) and files beside it (``/subflow/<name>``), packed as a
second initramfs archive appended to the image's (:mod:`.image`). The VM runs it as PID 1's child, prints
``SUBFLOW-JOB-RC=<code>`` and powers off. The job sends files back by printing them base64-encoded between
``SUBFLOW-FILE-BEGIN <name>`` and ``SUBFLOW-FILE-END <name>`` lines on the serial console (the ``emit`` shell
function the job gets in ``/subflow/lib.sh``).

Acceleration: KVM when ``/dev/kvm`` boots the Debian kernel, TCG (software emulation) otherwise. Some hosts'
``/dev/kvm`` (a ``kvm-pvm`` module) boots no stock kernel; :func:`accelerator` finds out once per host with a
short boot and remembers it in the image cache, unless ``SUBFLOW_VM_ACCEL`` (``kvm`` or ``tcg``) says.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from subflow.errors import VmError
from subflow_engines.vm.image import VmImage, cache_dir

#: shell helpers every job gets as /subflow/lib.sh
JOB_LIB = r"""
emit() {  # emit NAME FILE: send FILE back to the host as NAME
  echo "SUBFLOW-FILE-BEGIN $1"
  base64 -w 76 "$2"
  echo "SUBFLOW-FILE-END $1"
}
now() { date +%s.%N; }
"""

_FILE = re.compile(r"^SUBFLOW-FILE-BEGIN (\S+)\r?$(.*?)^SUBFLOW-FILE-END \1\r?$", re.M | re.S)
_RC = re.compile(r"^SUBFLOW-JOB-RC=(\d+)", re.M)
_UP = re.compile(r"^SUBFLOW-VM-UP ([0-9.]+)", re.M)


@dataclass
class VmJobResult:
    """A finished job: its exit code, the serial console's text, the files it sent back (name → bytes), the wall
    time of the whole boot (s), the VM's uptime when the job started (s) and the accelerator used."""

    rc: int
    console: str
    files: dict[str, bytes] = field(default_factory=dict)
    wall_s: float = 0.0
    boot_s: float | None = None
    accel: str = "tcg"


def _job_archive(script: str, files: dict[str, bytes], out: Path) -> None:
    """A newc cpio archive holding ``/subflow/job.sh``, ``/subflow/lib.sh`` and ``files`` under ``/subflow``."""
    with tempfile.TemporaryDirectory(prefix="subflow-job-") as tmp:
        root = Path(tmp)
        (root / "subflow").mkdir()
        (root / "subflow/job.sh").write_text(script)
        (root / "subflow/job.sh").chmod(0o755)
        (root / "subflow/lib.sh").write_text(JOB_LIB)
        for name, data in files.items():
            if "/" in name or name in ("job.sh", "lib.sh", "", ".", ".."):
                raise ValueError(f"job file name {name!r}: a plain file name other than job.sh and lib.sh")
            (root / "subflow" / name).write_bytes(data)
        names = subprocess.run(["find", "subflow", "-print0"], cwd=root, check=True, capture_output=True).stdout
        with open(out, "wb") as archive:
            subprocess.run(["cpio", "--null", "--quiet", "-o", "-H", "newc"], cwd=root, input=names, stdout=archive,
                           check=True)


def _boot(image: VmImage, initrd: Path, console: Path, accel: str, memory_mb: int, cpus: int,
          timeout_s: float) -> tuple[str, float]:
    """Boot once; the console's text and the wall time (s). Kills QEMU at ``timeout_s``."""
    qemu = shutil.which("qemu-system-x86_64")
    if qemu is None:
        raise VmError("qemu-system-x86_64 is not installed (Debian: qemu-system-x86)")
    cmd = [qemu, "-accel", accel, "-m", str(memory_mb), "-smp", str(cpus), "-nodefaults", "-no-reboot",
           "-display", "none", "-monitor", "none", "-serial", f"file:{console}",
           "-kernel", str(image.kernel), "-initrd", str(initrd),
           "-append", "console=ttyS0 rdinit=/subflow-init quiet loglevel=3 panic=-1 mitigations=off"]
    if accel == "kvm":
        cmd[1:1] = ["-cpu", "host"]
    t0 = time.monotonic()
    try:
        subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        pass
    text = console.read_text(errors="replace") if console.exists() else ""
    return text, time.monotonic() - t0


def accelerator(image: VmImage) -> str:
    """``kvm`` if ``/dev/kvm`` boots the image's kernel to its init within 60 s, else ``tcg``; ``SUBFLOW_VM_ACCEL``
    overrides. Probed once per host and kernel, remembered in the image cache."""
    forced = os.environ.get("SUBFLOW_VM_ACCEL")
    if forced in ("kvm", "tcg"):
        return forced
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    memo = cache_dir() / f"accel-{image.kernel_version}"
    if memo.is_file():
        return memo.read_text().strip()
    with tempfile.TemporaryDirectory(prefix="subflow-accel-") as tmp:
        job = Path(tmp) / "job.cpio"
        _job_archive("#!/bin/sh\nexit 0\n", {}, job)
        initrd = Path(tmp) / "initrd"
        _concat(image.initramfs, job, initrd)
        text, _ = _boot(image, initrd, Path(tmp) / "console", "kvm", 512, 1, 60.0)
    accel = "kvm" if _RC.search(text) else "tcg"
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(accel)
    return accel


def _concat(base: Path, job: Path, out: Path) -> None:
    with open(out, "wb") as dst:
        for part in (base, job):
            with open(part, "rb") as src:
                shutil.copyfileobj(src, dst, 1 << 20)


def run_job(image: VmImage, script: str, files: dict[str, bytes] | None = None, timeout_s: float = 600.0,
            memory_mb: int = 1536, cpus: int = 2) -> VmJobResult:
    """Boot ``image`` with ``script`` as its job and wait for it to power off.

    Parameters
    ----------
    image : VmImage
    script : str
        The job, a shell script (``#!/bin/sh``); it may source ``/subflow/lib.sh`` for ``emit`` and ``now``.
    files : dict, optional
        File name → content, put beside the job in ``/subflow``.
    timeout_s : float
        Wall-clock limit of the whole boot, s.
    memory_mb, cpus : int
        The VM's memory (MiB) and virtual CPUs.

    Returns
    -------
    VmJobResult

    Raises
    ------
    VmError
        If the VM never reached its init, or the job printed no exit code before ``timeout_s`` (the console's last
        lines in the message).
    """
    accel = accelerator(image)
    with tempfile.TemporaryDirectory(prefix="subflow-vmrun-") as tmp:
        job = Path(tmp) / "job.cpio"
        _job_archive(script, files or {}, job)
        initrd = Path(tmp) / "initrd"
        _concat(image.initramfs, job, initrd)
        text, wall = _boot(image, initrd, Path(tmp) / "console", accel, memory_mb, cpus, timeout_s)
    up = _UP.search(text)
    rc = _RC.search(text)
    tail = "\n".join(text.splitlines()[-40:])
    if up is None:
        raise VmError(f"the VM did not reach its init in {wall:.0f} s ({accel}); console:\n{tail}")
    if rc is None:
        raise VmError(f"the job printed no exit code in {wall:.0f} s ({accel}); console:\n{tail}")
    sent = {m.group(1): base64.b64decode("".join(m.group(2).split())) for m in _FILE.finditer(text)}
    return VmJobResult(rc=int(rc.group(1)), console=text, files=sent, wall_s=wall, boot_s=float(up.group(1)),
                       accel=accel)

"""The testbed VM's image: Debian's kernel and packages, built by ``mmdebstrap``, booted as one initramfs.

:func:`build_image` runs ``mmdebstrap`` (Debian bookworm, the ``apt`` variant plus :data:`PACKAGES`), takes the
kernel out of ``/boot``, keeps only the kernel modules a network testbed loads (the network stack, Open
vSwitch, bridges, ``mac80211``/``cfg80211`` and ``mac80211_hwsim``, the virtual network devices, crypto and
library modules; no hardware drivers), and packs the root file system as an uncompressed ``newc`` cpio archive
(the kernel's initramfs format) whose ``/subflow-init`` (``init.sh`` beside this module) runs the job. The
package sources are the host's own apt sources (``/etc/apt/sources.list.d/debian.sources``, or
``SUBFLOW_VM_APT_SOURCES``): nothing here names a mirror. ``SUBFLOW_VM_KERNEL_RELEASE`` (e.g.
``bookworm-backports``, which those sources must then carry) takes the kernel from that release instead
(:func:`packages`).

:func:`ensure_image` builds once per set of inputs (:data:`PACKAGES`, the suite, ``init.sh``, the kept modules,
:data:`IMAGE_FORMAT`) into ``SUBFLOW_VM_CACHE`` (default ``~/.cache/subflow/vm``) and reuses it after.

References
----------
.. [1] mmdebstrap(1), Debian: ``--variant=apt``, ``--include``, a ``.sources`` file as the mirror argument.
.. [2] Linux ``Documentation/driver-api/early-userspace/buffer-format.rst`` (initramfs: concatenated ``newc``
   cpio archives, later members overriding earlier ones).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Debian release of the VM
SUITE = "bookworm"
#: packages besides the ``apt`` variant's essential set: Debian's kernel (``mac80211_hwsim``, netem,
#: openvswitch as modules), the 802.11 user space, Open vSwitch, traffic tools
PACKAGES = (
    "linux-image-amd64", "kmod", "mount", "iproute2", "iw", "hostapd", "wpasupplicant", "iperf3", "procps",
    "iputils-ping", "openvswitch-switch", "python3",
)
#: modules kept, with every module they depend on: paths relative to ``lib/modules/<version>/kernel`` starting
#: with one of these (folders or a module's name); everything else under it is dropped. ``mac80211_hwsim`` is in ``drivers/net/wireless`` up to
#: Linux 6.6 and in its ``virtual`` folder since 6.7
KEPT_MODULES = ("net/", "lib/", "crypto/", "arch/", "drivers/net/wireless/mac80211_hwsim.",
                "drivers/net/wireless/virtual/")
#: top-level modules of ``drivers/net`` (veth, tun, dummy, macvlan, ifb…) are kept too
KEPT_NET_DRIVER_FILES = True
HERE = Path(__file__).resolve().parent
#: the Mininet-WiFi flavour adds what building and running Mininet, Mininet-WiFi, wmediumd and hwsim_mgmt
#: from their sources needs (compilers and headers, the Python packages ``mn_wifi`` imports, Mininet's tools)
MININET_WIFI_PACKAGES = (
    "gcc", "make", "libc6-dev", "pkg-config", "libnl-3-dev", "libnl-genl-3-dev", "libnl-route-3-dev",
    "libconfig-dev", "libevent-dev", "python3-setuptools", "python3-pip", "python3-numpy", "python3-matplotlib",
    "python3-requests", "python3-six", "python3-bitstring", "python3-pil", "openvswitch-testcontroller",
    "net-tools", "ethtool", "socat", "psmisc", "mptcpd", "mptcpize", "iptables", "wireless-tools", "rfkill",
    "telnet",
)
#: image flavours: the packages of each
FLAVOURS = {"wifi": PACKAGES, "mininet-wifi": PACKAGES + MININET_WIFI_PACKAGES}
#: version of how :func:`build_image` makes an image (bump when the pruning or packing changes)
IMAGE_FORMAT = 1


@dataclass(frozen=True)
class VmImage:
    """A built image: ``kernel`` (the bzImage) and ``initramfs`` (the root file system, a newc cpio archive)."""

    kernel: Path
    initramfs: Path
    kernel_version: str


def cache_dir() -> Path:
    """Where images are kept: ``SUBFLOW_VM_CACHE`` or ``~/.cache/subflow/vm``."""
    return Path(os.environ.get("SUBFLOW_VM_CACHE") or Path.home() / ".cache" / "subflow" / "vm")


def apt_sources() -> Path:
    """The host's apt sources given to mmdebstrap: ``SUBFLOW_VM_APT_SOURCES`` or Debian's default ``.sources`` file.

    Raises
    ------
    FileNotFoundError
        If neither exists.
    """
    path = Path(os.environ.get("SUBFLOW_VM_APT_SOURCES") or "/etc/apt/sources.list.d/debian.sources")
    if not path.is_file():
        raise FileNotFoundError(f"no apt sources for mmdebstrap at {path} (set SUBFLOW_VM_APT_SOURCES)")
    return path


def packages(flavour: str = "wifi") -> tuple[str, ...]:
    """The packages of ``flavour`` (:data:`FLAVOURS`) as mmdebstrap installs them: ``linux-image-amd64`` becomes
    ``linux-image-amd64/<release>`` when ``SUBFLOW_VM_KERNEL_RELEASE`` names a release (apt's ``package/release``
    form).

    Raises
    ------
    KeyError
        For an unknown flavour.
    ValueError
        If ``SUBFLOW_VM_KERNEL_RELEASE`` is not a Debian release name (lower-case letters, digits and ``-``).

    Examples
    --------
    >>> import os
    >>> os.environ["SUBFLOW_VM_KERNEL_RELEASE"] = "bookworm-backports"
    >>> packages("wifi")[0]
    'linux-image-amd64/bookworm-backports'
    >>> del os.environ["SUBFLOW_VM_KERNEL_RELEASE"]
    >>> packages("wifi")[0]
    'linux-image-amd64'
    """
    release = os.environ.get("SUBFLOW_VM_KERNEL_RELEASE", "")
    if release and not re.fullmatch(r"[a-z][a-z0-9-]*", release):
        raise ValueError(f"SUBFLOW_VM_KERNEL_RELEASE={release!r}: not a Debian release name (e.g. bookworm-backports)")
    kernel = f"linux-image-amd64/{release}" if release else "linux-image-amd64"
    return tuple(kernel if p == "linux-image-amd64" else p for p in FLAVOURS[flavour])


def image_key(flavour: str = "wifi") -> str:
    """A digest of everything that makes an image of ``flavour`` (:data:`FLAVOURS`): :data:`IMAGE_FORMAT`,
    suite, packages (:func:`packages`, so the kernel's release too), kept modules, the init script."""
    h = hashlib.sha256()
    for part in (str(IMAGE_FORMAT), SUITE, flavour, *packages(flavour), *KEPT_MODULES, str(KEPT_NET_DRIVER_FILES)):
        h.update(part.encode() + b"\0")
    h.update((HERE / "init.sh").read_bytes())
    return h.hexdigest()[:16]


def _prune_modules(root: Path) -> str:
    """Drop every kernel module outside :data:`KEPT_MODULES` and what they depend on (the image's
    ``modules.dep``), rebuild the module index; the kernel version."""
    versions = sorted(p.name for p in (root / "usr/lib/modules").iterdir())
    if len(versions) != 1:
        raise RuntimeError(f"expected one kernel in the image, found {versions}")
    version = versions[0]
    base = root / "usr/lib/modules" / version
    deps: dict[str, list[str]] = {}
    for line in (base / "modules.dep").read_text().splitlines():
        module, _, needs = line.partition(":")
        deps[module] = needs.split()
    wanted = [m for m in deps if m.startswith("kernel/") and m.removeprefix("kernel/").startswith(KEPT_MODULES)]
    if KEPT_NET_DRIVER_FILES:
        wanted += [m for m in deps if m.count("/") == 3 and m.startswith("kernel/drivers/net/")]
    keep: set[str] = set()
    while wanted:
        module = wanted.pop()
        if module not in keep:
            keep.add(module)
            wanted += deps.get(module, [])
    for module in deps:
        if module not in keep:
            (base / module).unlink(missing_ok=True)
    subprocess.run(["chroot", str(root), "depmod", version], check=True)  # the image's own kmod
    return version


def _slim(root: Path) -> None:
    """Remove what a test VM never reads: documentation, locales, apt's lists and caches, the kernel's initrd."""
    for rel in ("usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info", "var/cache/apt",
                "var/lib/apt/lists", "usr/share/zoneinfo"):
        shutil.rmtree(root / rel, ignore_errors=True)
    for initrd in (root / "boot").glob("initrd.img*"):
        initrd.unlink()


def build_image(out: Path, flavour: str = "wifi") -> VmImage:
    """Build the image of ``flavour`` (:data:`FLAVOURS`) into ``out`` (created): ``vmlinuz``, ``rootfs.cpio`` and
    ``key`` (:func:`image_key`).

    Needs root (mmdebstrap's default mode, device nodes in the archive, ``chroot`` for the image's ``depmod``),
    ``mmdebstrap`` and ``cpio`` on the host, and the host's apt sources reachable. About 1.5 minutes here; the archive is ~300 MB.

    Raises
    ------
    subprocess.CalledProcessError
        If mmdebstrap, depmod or cpio fails (their output is in the exception).
    FileNotFoundError
        If the host has no apt sources file (:func:`apt_sources`).
    """
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="subflow-vm-") as tmp:
        tar = Path(tmp) / "rootfs.tar"
        subprocess.run(
            ["mmdebstrap", "--quiet", "--variant=apt", f"--include={','.join(packages(flavour))}",
             "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
             "--dpkgopt=path-exclude=/usr/share/locale/*", SUITE, str(tar), str(apt_sources())],
            check=True, capture_output=True, text=True)
        root = Path(tmp) / "root"
        root.mkdir()
        subprocess.run(["tar", "-xf", str(tar), "-C", str(root)], check=True)
        tar.unlink()
        kernels = sorted((root / "boot").glob("vmlinuz-*"))
        if not kernels:
            raise RuntimeError("the image has no /boot/vmlinuz-*: linux-image-amd64 did not install")
        shutil.copyfile(kernels[-1], out / "vmlinuz")
        version = _prune_modules(root)
        _slim(root)
        shutil.copyfile(HERE / "init.sh", root / "subflow-init")
        (root / "subflow-init").chmod(0o755)
        with open(out / "rootfs.cpio", "wb") as archive:
            files = subprocess.run(["find", ".", "-print0"], cwd=root, check=True, capture_output=True).stdout
            subprocess.run(["cpio", "--null", "--quiet", "-o", "-H", "newc"], cwd=root, input=files,
                           stdout=archive, check=True)
    (out / "kernel_version").write_text(version)
    (out / "key").write_text(image_key(flavour))
    return VmImage(out / "vmlinuz", out / "rootfs.cpio", version)


def ensure_image(flavour: str = "wifi") -> VmImage:
    """The cached image of ``flavour`` (:data:`FLAVOURS`) for the current inputs (:func:`image_key`), built first
    when missing or stale (the flavour's images of other inputs are removed then).

    Raises
    ------
    KeyError
        For an unknown flavour.
    subprocess.CalledProcessError, FileNotFoundError
        From :func:`build_image`.
    """
    key = image_key(flavour)
    out = cache_dir() / flavour / key
    if (out / "key").is_file() and (out / "key").read_text() == key:
        return VmImage(out / "vmlinuz", out / "rootfs.cpio", (out / "kernel_version").read_text())
    for stale in (cache_dir() / flavour).glob("*/key"):  # images of other inputs: 300 MB or more each
        shutil.rmtree(stale.parent, ignore_errors=True)
    return build_image(out, flavour)

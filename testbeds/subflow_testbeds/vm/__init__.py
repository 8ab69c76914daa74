"""A Debian VM for what this host's kernel cannot do: real 802.11 on ``mac80211_hwsim`` (hostapd, wpa_supplicant),
netem and Open vSwitch.

:mod:`.image` builds the VM (Debian's kernel and packages by ``mmdebstrap``, the whole root file system as one
initramfs), :mod:`.qemu` boots it under QEMU with a job (a shell script and its files) and returns what the job
printed and the files it sent back, and :mod:`.wifi_roam` is the job that associates a station with one hostapd
access point and roams it to another with a TCP flow across the roam.
"""

from subflow_testbeds.vm.image import FLAVOURS, PACKAGES, VmImage, build_image, ensure_image
from subflow_testbeds.vm.qemu import VmError, VmJobResult, run_job

__all__ = ["FLAVOURS", "PACKAGES", "VmError", "VmImage", "VmJobResult", "build_image", "ensure_image", "run_job"]

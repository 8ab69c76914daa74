"""A Debian VM for what the host's kernel may lack: real 802.11 on ``mac80211_hwsim`` (hostapd, wpa_supplicant),
netem and Open vSwitch.

:mod:`.image` builds the VM (Debian's kernel and packages by ``mmdebstrap``, the whole root file system as one
initramfs), :mod:`.qemu` boots it under QEMU with a job (a shell script and its files) and returns what the job
printed and the files it sent back, and :mod:`.mininet_wifi` builds Mininet-WiFi there from the user's source
trees and runs the ``mininet-wifi`` engine's scripts (its runner on a host without ``mac80211_hwsim``).
"""

from subflow_engines.vm.image import FLAVOURS, PACKAGES, VmImage, build_image, ensure_image
from subflow.errors import VmError
from subflow_engines.vm.qemu import VmJobResult, run_job

__all__ = ["FLAVOURS", "PACKAGES", "VmError", "VmImage", "VmJobResult", "build_image", "ensure_image", "run_job"]

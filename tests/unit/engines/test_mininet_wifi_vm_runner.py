"""The mininet-wifi engine's Debian VM runner is chosen only where this host lacks Mininet-WiFi and the user gave
every source tree and the wheels (``SUBFLOW_MININET_WIFI_SOURCES``)."""

from __future__ import annotations

import shutil

import pytest

from subflow_engines import mininet_wifi
from subflow_engines.vm.mininet_wifi import SOURCES, sources_from_env


@pytest.fixture
def sources(tmp_path, monkeypatch):
    for name in SOURCES:
        (tmp_path / name).mkdir()
    (tmp_path / "wheels").mkdir()
    (tmp_path / "wheels" / "flightradarapi-1.5.3-py3-none-any.whl").write_bytes(b"")
    monkeypatch.setenv("SUBFLOW_MININET_WIFI_SOURCES", str(tmp_path))
    return tmp_path


def test_every_tree_and_a_wheel_are_needed(sources):
    trees, wheels = sources_from_env()
    assert sorted(trees) == sorted(SOURCES) and wheels == sources / "wheels"
    shutil.rmtree(sources / "wmediumd")
    assert sources_from_env() is None


def test_without_the_setting_there_is_no_vm_runner(monkeypatch):
    monkeypatch.delenv("SUBFLOW_MININET_WIFI_SOURCES", raising=False)
    assert sources_from_env() is None
    assert mininet_wifi.vm_runner() is None


def test_the_vm_runs_mininet_wifi_where_the_host_cannot(sources, monkeypatch):
    # this host's kernel has no mac80211_hwsim: the VM is the runner once the sources are given and QEMU is here
    monkeypatch.setattr(mininet_wifi, "_available", {"mac80211_hwsim": False, "hostapd": True, "mn_wifi": False,
                                                     "root": True, "iperf3": True})
    if not all(shutil.which(t) for t in ("qemu-system-x86_64", "mmdebstrap", "cpio")):
        pytest.fail("scripts/bootstrap.sh --test installs qemu-system-x86, mmdebstrap and cpio")
    assert mininet_wifi.vm_runner() == sources_from_env()
    assert mininet_wifi.available()
    assert mininet_wifi.supports()["debian_vm"] is True
    # a host with Mininet-WiFi runs it itself
    monkeypatch.setattr(mininet_wifi, "_available", {k: True for k in mininet_wifi._available})
    assert mininet_wifi.vm_runner() is None

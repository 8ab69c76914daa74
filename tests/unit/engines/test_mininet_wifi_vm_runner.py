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


def test_a_record_is_asked_for_in_the_job_and_returned_with_its_script(tmp_path, monkeypatch):
    # the job (mininet_wifi.sh) records only when params.sh sets RECORD_S; the record comes back as <name>.rec.gz
    from subflow_engines.vm import mininet_wifi as vm
    from subflow_engines.vm.qemu import VmJobResult

    seen = {}

    def job(image, script, files, timeout_s, memory_mb):
        seen.update(files)
        return VmJobResult(rc=0, console="", files={"a.rc": b"0\n", "a.out": b"out", "a.err": b"",
                                                   "a.rec.gz": b"\x1f\x8brecord"})

    monkeypatch.setattr(vm, "run_job", job)
    monkeypatch.setattr(vm, "ensure_image", lambda flavour: None)
    trees = {name: tmp_path / name for name in SOURCES}
    for tree in trees.values():
        tree.mkdir()
    run = vm.run_scripts(trees, tmp_path, {"a": "print()"}, record_s=0.5, record_nodes=("sta1", "h1"))["a"]
    assert b"RECORD_S=0.5\n" in seen["params.sh"] and b"RECORD_NODES='sta1 h1'\n" in seen["params.sh"]
    assert run.record == b"\x1f\x8brecord" and run.stdout == "out"
    run = vm.run_scripts(trees, tmp_path, {"a": "print()"})["a"]
    assert b"RECORD_S=\n" in seen["params.sh"]
    with pytest.raises(ValueError, match="record_s"):
        vm.run_scripts(trees, tmp_path, {"a": "print()"}, record_s=0.01)
    with pytest.raises(ValueError, match="record_nodes"):
        vm.run_scripts(trees, tmp_path, {"a": "print()"}, record_s=1, record_nodes=("sta1; reboot",))
    # the script's limit counts from its start, network build included: it gets SETUP_S more
    vm.run_scripts(trees, tmp_path, {"a": "print()"}, script_timeout_s=700)
    assert f"SCRIPT_TIMEOUT_S={int(700 + vm.SETUP_S)}\n".encode() in seen["params.sh"]
    # the job's recorder: every node with its own network namespace, the five commands, gzipped and sent back
    job_text = (vm.HERE / "mininet_wifi.sh").read_text()
    for cmd in ("ss -tani", "ss -Mni", "ip mptcp endpoint show", "ip mptcp limits", "ip -o link", "tc -s qdisc show"):
        assert f'echo "## {cmd}"; {cmd}' in job_text
    assert 'emit "$name.rec.gz"' in job_text


def test_the_testbed_cuts_a_scenario_to_its_first_seconds():
    from subflow_testbeds.vm.mininet_wifi import cut, run_key

    doc = {"run": {"duration_s": 1800}, "flows": [{"id": "a"}, {"id": "b", "start_s": 100, "stop_s": 900},
                                                   {"id": "c", "start_s": 600}]}
    short = cut(doc, 600)
    assert short["run"]["duration_s"] == 600 and doc["run"]["duration_s"] == 1800
    assert [(f["id"], f.get("stop_s")) for f in short["flows"]] == [("a", None), ("b", 600)]
    assert cut(doc, None) == doc and cut(doc, 3600) == doc
    assert run_key("naval-geo", "mptcp", 600.0) == "naval-geo600-mptcp"
    assert run_key("naval-geo", "mptcp", None) == "naval-geo-mptcp"

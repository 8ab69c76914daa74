"""The commands that hold a rated flow to its rate on the kernel engines (:mod:`subflow.runplan.ratecap`).

The kernel test (tests/linux/test_rate_cap.py) shows the effect; these check the rate arithmetic
against hand-computed frame sizes and the commands' shape, which both kernel engines run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subflow.io.exports import script_for
from subflow.runplan import ratecap

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(("rate_mbps", "mss", "kbit"), [
    (2.0, 1448, 2091),   # 2000 × 1514 / 1448 = 2091.2: a 1448-byte segment travels in a 1514-byte frame
    (4.0, 1448, 4182),
    (1.0, 536, 1123),    # 1000 × 602 / 536 = 1123.1
    (0.001, 1448, 8),    # tc's smallest rate
])
def test_the_cap_adds_the_frame_overhead_to_the_goodput(rate_mbps, mss, kbit):
    assert ratecap.cap_kbit(rate_mbps, mss) == kbit


def test_one_class_per_flow_and_one_redirect_per_interface_and_flow():
    cmds = ratecap.cap_commands(["eth0", "wlan0"], [(5202, 3000), (5201, 2091)], ifb="sta1-rate")
    text = [" ".join(c) for c in cmds]
    assert text[:3] == ["ip link add sta1-rate type ifb", "ip link set dev sta1-rate up",
                        "tc qdisc add dev sta1-rate root handle 1: htb"]
    classes = [c for c in text if c.startswith("tc class add")]
    assert classes == ["tc class add dev sta1-rate parent 1: classid 1:10 htb rate 2091kbit ceil 2091kbit",
                       "tc class add dev sta1-rate parent 1: classid 1:11 htb rate 3000kbit ceil 3000kbit"]
    selectors = [c for c in text if c.startswith("tc filter add dev sta1-rate")]
    assert [s.split("dport ")[1] for s in selectors] == ["5201 0xffff flowid 1:10", "5202 0xffff flowid 1:11"]
    redirects = [c for c in text if "mirred" in c]
    assert len(redirects) == 4
    assert {c.split()[4] for c in redirects} == {"eth0", "wlan0"}
    assert all(c.endswith("action mirred egress redirect dev sta1-rate") for c in redirects)
    assert sum(c.endswith(" clsact") for c in text) == 2


@pytest.mark.parametrize("caps", [[], [(5201, 100), (5201, 200)]])
def test_no_flow_or_a_port_twice_is_refused(caps):
    with pytest.raises(ValueError, match="distinct ports"):
        ratecap.cap_commands(["eth0"], caps)


def test_the_mininet_wifi_script_caps_each_rated_flow_at_its_source():
    """naval-geo's two rated flows (4 Mbit/s from each ship): each ship's script commands cap its own
    flow's port on both its interfaces (wired SATCOM terminal and wlan)."""
    doc = json.loads((ROOT / "examples" / "naval-geo.json").read_text())
    rates = {f["src"]: f["rate_mbps"] for f in doc["flows"]}
    script = script_for(doc, "mptcp")
    ns: dict = {}
    start = script.index("RATE_CAPS = {")
    exec(script[start:script.index("}\n", start) + 2], ns)  # the constant only: data, no code runs
    caps = ns["RATE_CAPS"]
    assert len(caps) == len(rates) == 2
    for node, cmds in caps.items():
        kbit = [c for c in cmds if c.startswith(f"tc class add dev {node}-rate")]
        assert len(kbit) == 1
        assert sum("mirred" in c for c in cmds) == 2
    assert sorted(int(c.split(" rate ")[1].split("kbit")[0]) for cmds in caps.values() for c in cmds
                  if c.startswith("tc class")) == sorted(round(r * 1000 * 1514 / 1448) for r in rates.values())

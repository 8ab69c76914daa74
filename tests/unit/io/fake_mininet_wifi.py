"""A FAKE of Mininet-WiFi's Python API (``mininet`` + ``mn_wifi``) for running generated scripts on CI.

Mininet-WiFi needs ``mac80211_hwsim``, Open vSwitch and root; this fake records every call and
shell command instead, and models only the rules of the real source that the generated scripts
depend on, each named here and checked by ``test_mininet_wifi_script_rules.py``:

* port numbering (``mininet/node.py`` ``Node.newPort``: ``max(ports) + 1``, else the class's
  ``portBase``; ``mininet/link.py`` ``Link.intfName``: ``<node>-eth<port>``): hosts and stations
  start at port 0, access points at 1 (``mn_wifi/node.py`` ``AP.portBase``); ``configureWifiNodes``
  puts a station's ``<sta>-wlan<k>`` on port ``k`` (``mn_wifi/link.py`` ``managed``) and an access
  point's ``<ap>-wlan1`` on its next port (``mn_wifi/net.py`` ``configMasterIntf``). A command naming
  a device the node does not have is recorded as ``missing-dev`` ("Cannot find device");
* ``mobility(node, 'start'|'stop', time=...)`` keeps one start/stop pair per node and computes
  ``range((endTime - startTime) * 10)`` on ``'stop'`` (``mn_wifi/mobility.py``: ``ConfigMobility``,
  ``Tracked.create_coord``), so a float time meets the real ``TypeError``, recorded as
  ``mobility-thread-died`` (on Mininet-WiFi it ends the mobility thread, and the script runs on);
* Open vSwitch resets the qdisc of every port an access point's ``start()`` adds, and nothing
  reapplies a wired interface's TCLink shaping (``mn_wifi/node.py`` ``OVSAP.TCReapply`` only handles
  wireless interfaces): an interface's ``shaping`` is its TCLink parameters until then, ``None`` after,
  and ``intf.config(**params)`` sets it again (``mininet/link.py`` ``TCIntf.config``);
* association by range: a station's wlan is associated (``associatedTo``) with the nearest access
  point whose ``range`` covers it, re-evaluated at ``build()`` and on every ``setPosition``
  (``mn_wifi/mobility.py`` ``check_in_range``; ``mn_wifi/node.py`` ``setPosition`` -> ``configLinks``);
* carrier: a wlan Mininet-WiFi has just associated gets its carrier (``LOWER_UP`` in ``ip -o link show dev``)
  only ``CARRIER_DELAY_S`` (2 s) later, and loses it at once when disassociated: Mininet-WiFi sets
  ``associatedTo`` when it asks for the association (``mn_wifi/link.py`` ``iwconfig_connect`` ->
  ``setConnected``), and mac80211 turns the carrier on when the 802.11 association completes; the
  carrier's changes are recorded as ``carrier`` calls;
* ``addLink(ap, client, cls=_4address)`` (``mn_wifi/link.py`` ``_4address``): ``<client>.wds<c>`` on the
  client (``c`` from 0) and ``<ap>-wlan1.sta<w>`` on the access point (``w`` from 1), both on the port the
  access point's ``newPort()`` gives (``params1``/``params2`` are one dict); a port the client already
  holds is recorded as ``port-collision`` (``addWIntf`` would replace that interface). Recorded as
  ``addLink-4address`` with its ports and the network's ``config4addr``;
* ``addLink(sta, cls=adhoc, intf=...)`` (``mn_wifi/link.py`` ``adhoc``): that wlan joins the IBSS
  (``associatedTo = 'adhoc'``, never re-associated to an access point), recorded as ``addLink-adhoc``;
  ``configureNodes`` does what ``configureWifiNodes`` does (``mn_wifi/net.py``: the latter calls the former).

Commands ending in ``&`` get ``lastPid`` as Mininet's ``Node.sendCmd`` sets it; with
``_fake_calls.IPERF = "late"`` an iperf3 command starts a real process that writes a small iperf3
JSON to its ``> file`` redirect one second later (an iperf3 that finishes after its planned end); with
``"stuck"`` it runs until SIGINT and then writes its report with the error iperf3 writes on SIGINT (an
iperf3 the script must interrupt); with ``"deaf"`` it ignores SIGINT and writes nothing (one the script
must kill). The PID of each such process is recorded as an ``iperf-pid`` call.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

FAKE_MODULES = {
    "mininet/__init__.py": "",
    "mininet/_fake_calls.py": "CALLS = []\nCLOCK = None\nIPERF = 'none'\n\n\n"
                              "def now():\n    return None if CLOCK is None else round(CLOCK.t, 6)\n",
    "mininet/log.py": "from mininet._fake_calls import CALLS\n"
                      "def setLogLevel(level):\n    CALLS.append(['setLogLevel', level])\n",
    "mininet/node.py": "class Controller:\n    pass\n",
    "mininet/link.py": "class TCLink:\n    pass\n",
    "mn_wifi/__init__.py": "",
    "mn_wifi/link.py": "class wmediumd:\n    pass\n\n\nclass _4address:\n    pass\n\n\nclass adhoc:\n    pass\n",
    "mn_wifi/node.py": "class OVSKernelAP:\n    pass\n",
    "mn_wifi/wmediumdConnector.py": "interference = 'interference'\n",
    "mn_wifi/net.py": textwrap.dedent(
        '''
        import json, math, re, subprocess, sys
        from mininet import _fake_calls
        from mininet._fake_calls import CALLS

        # fake-clock seconds from Mininet-WiFi's association flag to the wlan's carrier (802.11 association done)
        CARRIER_DELAY_S = 2.0

        LATE_IPERF = (
            "import json, sys, time; time.sleep(1.0); "
            "role = sys.argv[2]; key = 'accepted_connection' if role == 'server' else 'connecting_to'; "
            "doc = {'start': {key: {}}, 'intervals': [{'sum': {'start': 0, 'end': 1, 'bytes': 125000, "
            "'bits_per_second': 1e6}}], 'end': {}}; open(sys.argv[1], 'w').write(json.dumps(doc))"
        )

        STUCK_IPERF = (
            "import json, signal, sys, time\\n"
            "path, role, mode = sys.argv[1:4]\\n"
            "key = 'accepted_connection' if role == 'server' else 'connecting_to'\\n"
            "def report(*_):\\n"
            "    doc = {'start': {key: {}}, 'intervals': [{'sum': {'start': 0, 'end': 1, 'bytes': 125000, "
            "'bits_per_second': 1e6}}], 'end': {}, 'error': ('interrupt - ' if role == 'client' else '') "
            "+ 'the client has terminated'}\\n"
            "    open(path, 'w').write(json.dumps(doc))\\n"
            "    sys.exit(0)\\n"
            "signal.signal(signal.SIGINT, signal.SIG_IGN if mode == 'deaf' else report)\\n"
            "while True:\\n"
            "    time.sleep(0.05)\\n"
        )


        class FakeIntf:
            def __init__(self, node, name, params):
                self.node, self.name, self.params = node, name, dict(params)
                self.shaping = dict(params) if params else None

            def config(self, **params):
                CALLS.append(["intf.config", self.node.name, self.name, {k: repr(v) for k, v in params.items()}])
                self.shaping = dict(params)


        class FakeWlan:
            def __init__(self, node, name):
                self.node, self.name, self.associatedTo, self.range = node, name, None, 0
                self.associated_at = None

            def carrier(self):
                if self.associatedTo == "adhoc":
                    return True
                return (self.associatedTo is not None and self.associated_at is not None
                        and (_fake_calls.now() or 0) >= self.associated_at + CARRIER_DELAY_S - 1e-9)


        class FakeNode:
            portBase = 0

            def __init__(self, name, net, params):
                self.name, self.net, self.params = name, net, params
                self.ports, self.nameToIntf, self.wintfs, self.lastPid = {}, {}, {}, None
                if "position" in params:
                    self.position = [float(v) for v in str(params["position"]).split(",")]

            def newPort(self):
                return max(self.ports.values()) + 1 if self.ports else self.portBase

            def addIntf(self, intf, port):
                self.ports[intf.name] = port
                self.nameToIntf[intf.name] = intf

            def intf(self, name):
                return self.nameToIntf[name]

            def intfList(self):
                return sorted(self.nameToIntf.values(), key=lambda i: self.ports[i.name])

            def cmd(self, command):
                CALLS.append(["cmd", self.name, command, _fake_calls.now()])
                made = re.match(r"ip link add (\\S+) type ifb", command)
                if made:  # a device the script creates in the node (the rate cap's IFB)
                    self.__dict__.setdefault("created_devs", set()).add(made.group(1))
                for dev in re.findall(r"\\bdev (\\S+)", command):
                    if dev != "lo" and dev not in self.nameToIntf and dev not in self.__dict__.get("created_devs", ()):
                        CALLS.append(["missing-dev", self.name, dev, command])
                self.lastPid = None
                shown = re.match(r"ip -o link show dev (\\S+)$", command)
                if shown:
                    wlan = next((w for w in self.wintfs.values() if w.name == shown.group(1)), None)
                    up = wlan is None or wlan.carrier()
                    if wlan is not None and up != getattr(wlan, "reported", None):
                        CALLS.append(["carrier", wlan.name, up, _fake_calls.now()])
                        wlan.reported = up
                    flags = "BROADCAST,MULTICAST,UP,LOWER_UP" if up else "NO-CARRIER,BROADCAST,MULTICAST,UP"
                    return f"7: {shown.group(1)}: <{flags}> mtu 1500 qdisc noqueue state {'UP' if up else 'DORMANT'}\\n"
                if command.endswith("&"):
                    m = re.search(r"> (\\S+) 2> \\S+ &$", command)
                    if "iperf3" in command and m and _fake_calls.IPERF in ("late", "stuck", "deaf"):
                        role = "server" if " -s " in command else "client"
                        if _fake_calls.IPERF == "late":
                            proc = subprocess.Popen([sys.executable, "-c", LATE_IPERF, m.group(1), role])
                        else:
                            proc = subprocess.Popen([sys.executable, "-c", STUCK_IPERF, m.group(1), role,
                                                     _fake_calls.IPERF])
                        self.lastPid = proc.pid
                        CALLS.append(["iperf-pid", self.name, proc.pid])
                return ""

            def setPosition(self, pos):
                CALLS.append(["setPosition", self.name, pos, _fake_calls.now()])
                self.position = [float(v) for v in pos.split(",")]
                self.net._associate()

            def start(self, controllers):
                CALLS.append(["start", self.name])
                for name, intf in self.nameToIntf.items():
                    if isinstance(intf, FakeIntf):
                        intf.shaping = None  # Open vSwitch took the port: the TCLink qdisc is gone


        class FakeHost(FakeNode):
            portBase = 0


        class FakeStation(FakeNode):
            portBase = 0


        class FakeAP(FakeNode):
            portBase = 1


        class Mininet_wifi:
            def __init__(self, **kwargs):
                CALLS.append(["Mininet_wifi", {k: getattr(v, "__name__", repr(v)) for k, v in kwargs.items()}])
                self.kwargs = kwargs
                self.nodes, self.hosts, self.stations, self.aps, self.switches = {}, [], [], [], []
                self.mob = {}

            def _add(self, kind, cls, name, group, **kwargs):
                CALLS.append([kind, name, {k: repr(v) for k, v in kwargs.items()}])
                node = self.nodes[name] = cls(name, self, kwargs)
                group.append(node)
                return node

            def addController(self, name, **kwargs):
                CALLS.append(["addController", name])

            def addHost(self, name, **kwargs):
                return self._add("addHost", FakeHost, name, self.hosts, **kwargs)

            def addStation(self, name, **kwargs):
                return self._add("addStation", FakeStation, name, self.stations, **kwargs)

            def addAccessPoint(self, name, **kwargs):
                return self._add("addAccessPoint", FakeAP, name, self.aps, **kwargs)

            def configureWifiNodes(self):
                CALLS.append(["configureWifiNodes"])
                self._configure()

            def configureNodes(self):
                CALLS.append(["configureNodes"])
                self._configure()

            def _configure(self):
                for sta in self.stations:
                    for k in range(int(sta.params.get("wlans", 1))):
                        w = FakeWlan(sta, f"{sta.name}-wlan{k}")
                        sta.wintfs[k] = w
                        sta.addIntf(w, k)
                for ap in self.aps:
                    port = ap.newPort()
                    w = FakeWlan(ap, f"{ap.name}-wlan{port}")
                    w.range = float(ap.params.get("range", 0))
                    ap.wintfs[0] = w
                    ap.addIntf(w, port)

            def addLink(self, node1, node2=None, port1=None, port2=None, cls=None, **params):
                from mn_wifi.link import _4address, adhoc
                if cls is _4address:
                    return self._4address(node1, node2, port1, port2, **params)
                if cls is adhoc:
                    return self._adhoc(node1, **params)
                names = []
                for node in (node1, node2):
                    port = node.newPort()
                    name = f"{node.name}-eth{port}"
                    node.addIntf(FakeIntf(node, name, params), port)
                    names.append(name)
                CALLS.append(["addLink", [node1.name, node2.name], names, {k: repr(v) for k, v in params.items()}])

            def _4address(self, node1, node2, port1=None, port2=None, **params):
                """mn_wifi/link.py _4address: <client>.wds<c> on node2 (c from 0), <node1's wlan>.sta<w> on
                node1 (w from 1); both on the port node1.newPort() gives (one params dict for both ends)."""
                CALLS.append(["addLink-4address", [node1.name, node2.name], [port1, port2],
                              {k: repr(v) for k, v in params.items()}, self.kwargs.get("config4addr")])
                node2.cwds = getattr(node2, "cwds", -1) + 1
                node1.wds = getattr(node1, "wds", 0) + 1
                port = node1.newPort()
                if port in node2.ports.values():  # addWIntf would replace node2's interface on that port
                    CALLS.append(["port-collision", node2.name, port])
                client = FakeWlan(node2, f"{node2.name}.wds{node2.cwds}")
                up = FakeWlan(node1, f"{node1.wintfs[port1 or 0].name}.sta{node1.wds}")
                node2.addIntf(client, port)
                node1.addIntf(up, port)
                client.associatedTo = node1.wintfs[port1 or 0]
                CALLS.append(["4addr-interfaces", [up.name, port], [client.name, port]])

            def _adhoc(self, node, intf=None, **params):
                """mn_wifi/link.py adhoc: the node's wlan named intf joins the IBSS (associatedTo 'adhoc')."""
                CALLS.append(["addLink-adhoc", node.name, intf, {k: repr(v) for k, v in params.items()}])
                wlan = next((w for w in node.wintfs.values() if w.name == intf), None)
                if wlan is None:
                    CALLS.append(["missing-dev", node.name, intf, "addLink(cls=adhoc)"])
                    return
                wlan.associatedTo = "adhoc"

            def mobility(self, node, stage, time=None, position=None):
                CALLS.append(["mobility", node.name, stage, repr(time)])
                start = self.mob.get(node.name, (None,))[0]
                if stage == "start":
                    self.mob[node.name] = (time,)
                else:
                    try:
                        range((time - start) * 10)  # Tracked.create_coord's rule: whole seconds only
                    except TypeError as exc:  # on Mininet-WiFi it kills the mobility thread, not the script
                        CALLS.append(["mobility-thread-died", node.name, str(exc)])
                    self.mob[node.name] = (start, time)

            def _associate(self):
                for sta in self.stations:
                    for w in sta.wintfs.values():
                        if w.associatedTo == "adhoc":
                            continue
                        best = None
                        for ap in self.aps:
                            if not hasattr(ap, "position") or not hasattr(sta, "position") or not ap.wintfs:
                                continue
                            d = math.dist(sta.position, ap.position)
                            if d <= ap.wintfs[0].range and (best is None or d < best[0]):
                                best = (d, ap.wintfs[0])
                        new = best[1] if best else None
                        if new is not w.associatedTo:
                            CALLS.append(["association", w.name, new.node.name if new else None, _fake_calls.now()])
                            w.associated_at = _fake_calls.now() if new is not None else None
                        w.associatedTo = new

            def build(self):
                CALLS.append(["build"])
                self._associate()

            def get(self, name):
                return self.nodes[name]

            def __getattr__(self, method):  # setPropagationModel, configLinkStatus, stop, ...
                def record(*args, **kwargs):
                    CALLS.append([method, [getattr(a, "name", repr(a)) for a in args],
                                  {k: repr(v) for k, v in kwargs.items()}])
                return record
        '''
    ),
}

#: runs the generated script as ``__main__`` does, on a fake clock (``time.time``/``time.sleep``):
#: ``REAL_SLEEP_S`` caps the real seconds a fake sleep takes, ``DURATION_S`` (if not None) cuts the run
RUNNER = textwrap.dedent(
    """
    import importlib.util, json, shutil, sys, tempfile, time as real_time
    from mininet import _fake_calls

    class FakeClock:
        def __init__(self):
            self.t = 1000.0

        def time(self):
            return self.t

        def sleep(self, s):
            if s > 0:
                self.t += s
                if REAL_SLEEP_S:
                    real_time.sleep(min(s, REAL_SLEEP_S))

    spec = importlib.util.spec_from_file_location("generated", "script.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    clock = FakeClock()
    _fake_calls.CLOCK = clock
    _fake_calls.IPERF = IPERF
    mod.time = clock
    if DURATION_S is not None:
        mod.DURATION_S = DURATION_S
    net = mod.topology()
    mod.configure(net)
    run_dir = tempfile.mkdtemp(prefix="subflow-fake-")
    if hasattr(mod, "run"):
        mod.run(net, run_dir)
    else:
        mod.traffic(net)
    net.stop()
    shaping = {n.name: {i.name: i.shaping for i in n.nameToIntf.values() if hasattr(i, "shaping")}
               for n in net.nodes.values()}
    shutil.rmtree(run_dir, ignore_errors=True)
    print("FAKE-CALLS", json.dumps({"calls": _fake_calls.CALLS, "scenario": mod.SCENARIO, "shaping": shaping}))
    """
)


def run_with_fake_mininet(tmp_path: Path, script: str, *, duration_s: float | None = 0, iperf: str = "none",
                          real_sleep_s: float = 0.0) -> dict:
    """Run ``script`` in a subprocess, in a fresh working directory, against the fake package.

    Returns
    -------
    dict
        ``calls`` (every recorded call, ``cmd`` entries with the fake clock's time), ``scenario``
        (the script's SCENARIO), ``shaping`` (node -> wired interface -> TCLink parameters in force at
        the end, None where Open vSwitch cleared them), ``stdout`` (the script's own output).
    """
    fake = tmp_path / "fake_mininet"
    for rel, text in FAKE_MODULES.items():
        path = fake / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    work = tmp_path / "work"
    work.mkdir()
    (work / "script.py").write_text(script)
    runner = f"DURATION_S = {duration_s!r}\nIPERF = {iperf!r}\nREAL_SLEEP_S = {real_sleep_s!r}\n" + RUNNER
    proc = subprocess.run([sys.executable, "-I", "-B", "-c", f"import sys; sys.path.insert(0, {str(fake)!r}); "
                           f"exec({runner!r})"], cwd=work, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(p.name for p in work.iterdir()) == ["script.py"], "the script created a file"
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("FAKE-CALLS "))
    out = json.loads(line[len("FAKE-CALLS "):])
    out["stdout"] = proc.stdout
    return out

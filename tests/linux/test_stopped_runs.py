"""``linux`` runs stopped at random points on a loaded host leave nothing behind.

Nine runs (two at a time) of a 3-namespace path with 5 ms per hop and 5 % loss (the delay line and the statistic
match in use, as in the grid cell "newreno, RTT 20 ms, 5 %"), each on its own emulator agent
process (``python -m subflow_agent``), are stopped in each of three ways at each of three phases,
at a point drawn from a seeded generator:

* ways: the agent's time budget (``AGENT_RUN_TIME_BUDGET_S``, the engine's ``should_stop``), a
  cancel (``DELETE /runs/{id}``), SIGKILL of the agent process that runs the engine;
* phases: namespace set-up (after the run's record appears), traffic (after the run reports
  progress), teardown (after the first of its delay lines is stopped). A time budget is fixed when
  its agent starts, so its points are times: within set-up, within traffic, or just after the
  traffic's end.

Meanwhile a CPU burner and a disk writer (child processes) load the machine. After each run:
no namespace, host link, record or work directory of its prefix and no process it started is
left (for a killed agent: its processes have died with it, and the next agent's start-up sweep
removed its namespaces and record). Processes are checked two ways: the PIDs the run recorded
(with their start times), and every process on the host whose network namespace is one of the
run's (inode numbers taken while the run was alive). Only the runs this test started are looked
at; namespaces of other runs on the host are never touched.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from subflow.runplan.resolve import resolve_plan
from subflow_engines.linux import cleanup
from subflow_testbeds.processes import free_port, tail, wait_http

from .conftest import assert_no_leftovers
from .scenarios import two_path

pytestmark = pytest.mark.linux

SEED = 20261128
DURATION_S = 4.0
TOKEN = "stopped-runs-test-token-0123456789"
WAYS = ("timeout", "cancel", "kill")
PHASES = ("setup", "traffic", "teardown")


def _plan(duration_s: float = DURATION_S):
    doc = two_path(duration_s, with_slow_path=False, delay_ms=5.0)
    doc["links"][0]["loss"] = 0.05
    return resolve_plan(doc, "sptcp", "linux")


@dataclass
class Case:
    way: str
    phase: str
    #: seconds after the phase's trigger (cancel, kill) or the agent's time budget (timeout)
    at_s: float


def _lanes(rng: random.Random) -> list[list[Case]]:
    """The nine cases (each way at each phase, its point drawn from ``rng``) in two lanes run side
    by side, each in a drawn order ending with a kill (the agent started after it sweeps at start-up;
    the other kills' leftovers go in the sweep the next run of the lane starts with)."""
    cases = []
    for way in WAYS:
        for phase in PHASES:
            if way == "timeout":
                # the budget counts from the run's start on the agent: set-up takes 1-4 s here under load
                at = {"setup": rng.uniform(0.3, 1.0), "traffic": rng.uniform(3.5, 5.0),
                      "teardown": rng.uniform(8.0, 9.5)}[phase]
            else:
                at = {"setup": rng.uniform(0.0, 0.6), "traffic": rng.uniform(0.3, 3.0),
                      "teardown": rng.uniform(0.0, 0.15)}[phase]
            cases.append(Case(way, phase, round(at, 3)))
    rng.shuffle(cases)
    kills = [c for c in cases if c.way == "kill"]
    others = [c for c in cases if c.way != "kill"]
    lanes = [others[0::2] + kills[1:], others[1::2] + kills[:1]]
    for lane in lanes:
        head = lane[:-1]
        rng.shuffle(head)
        lane[:-1] = head
    return lanes


class Agent:
    """``python -m subflow_agent`` on a free loopback port, its log in ``log``."""

    def __init__(self, tmp: Path, name: str, budget_s: float = 600.0):
        self.port = free_port()
        self.log = tmp / f"agent-{name}.log"
        env = {**os.environ, "AGENT_TOKEN": TOKEN, "AGENT_PORT": str(self.port),
               "AGENT_RUN_TIME_BUDGET_S": str(budget_s), "LOG_FORMAT": "console"}
        with open(self.log, "wb") as fh:
            self.proc = subprocess.Popen([sys.executable, "-m", "subflow_agent"], env=env, stdout=fh,
                                         stderr=subprocess.STDOUT)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}",
                                 headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30.0)

    def ready(self) -> None:
        """Until it serves (its start-up, the sweep included, is done)."""
        def alive():
            if self.proc.poll() is not None:
                raise RuntimeError(f"agent exited: {tail(self.log)}")
        wait_http(f"http://127.0.0.1:{self.port}/health", alive=alive, timeout_s=90.0, what=tail(self.log))

    def stop(self) -> None:
        """SIGTERM (the agent cancels its runs and waits for their teardown), SIGKILL after 60 s."""
        self.http.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class Seen:
    """What the test saw of one run while it was alive."""

    prefix: str | None = None
    #: namespace name -> its inode (the ``net:[inode]`` of a process inside it)
    namespaces: dict[str, int] = field(default_factory=dict)
    #: (pid, start time) of the processes the run recorded
    pids: set[tuple[int, int | None]] = field(default_factory=set)
    #: the recorded processes that are delay lines (they end only in the teardown)
    delay_lines: set[tuple[int, int | None]] = field(default_factory=set)
    progressed: bool = False
    #: what existed when the test stopped the run: namespaces, recorded processes
    at_stop: tuple[int, int] = (0, 0)

    def look(self, owner_pid: int) -> None:
        """Find the run's prefix (the record its agent owns), note its namespaces and processes."""
        if self.prefix is None:
            for path in cleanup.state_dir().glob("sf*.json"):
                rec = cleanup.read_record(path.stem) or {}
                if rec.get("owner_pid") == owner_pid:
                    self.prefix = path.stem
                    break
        if self.prefix is None:
            return
        for ns in cleanup.list_namespaces():
            if ns.startswith(self.prefix + "-") and ns not in self.namespaces:
                try:
                    self.namespaces[ns] = os.stat(cleanup.NETNS_DIR / ns).st_ino
                except OSError:
                    pass
        for p, s in (cleanup.read_record(self.prefix) or {}).get("pids", []):
            if (int(p), s) not in self.pids:
                self.pids.add((int(p), s))
                try:
                    if b"delayline" in Path(f"/proc/{p}/cmdline").read_bytes():
                        self.delay_lines.add((int(p), s))
                except OSError:
                    pass

    def tearing_down(self) -> bool:
        """Whether the run's teardown began: one of its delay lines was stopped, or a namespace deleted."""
        return bool(self.delay_lines and len(_alive(self.delay_lines)) < len(self.delay_lines)
                    or self.namespaces and self.live_namespaces() < len(self.namespaces))

    def live_namespaces(self) -> int:
        return sum(1 for ns in cleanup.list_namespaces() if ns in self.namespaces)


def _processes_in(inodes: set[int]) -> list[str]:
    """``pid cmdline`` of every process on the host whose network namespace is one of ``inodes``."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            link = os.readlink(f"/proc/{entry}/ns/net")
            if int(link.split("[")[1].rstrip("]")) in inodes:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                out.append(f"{entry} {cmd}")
        except (OSError, IndexError, ValueError):
            continue
    return out


def _alive(pids: set[tuple[int, int | None]]) -> list[int]:
    return [p for p, s in pids if cleanup._alive(p, s)]


def _stop_run(agent: Agent, case: Case, run_id: str, seen: Seen, posted_t: float) -> str:
    """Watch the run until the case's trigger, wait ``case.at_s`` and stop it the case's way (a
    timeout needs nothing: its agent's budget, counted from about ``posted_t``, stops it). Returns
    the phase observed at the stop."""
    deadline = time.monotonic() + 60.0
    trigger_t = posted_t if case.way == "timeout" else None
    last_poll = 0.0
    while time.monotonic() < deadline:
        seen.look(agent.proc.pid)
        now = time.monotonic()
        if case.way != "timeout" and trigger_t is None:
            if case.phase == "setup" and seen.prefix is not None:
                trigger_t = now
            elif case.phase == "teardown" and seen.progressed and seen.tearing_down():
                trigger_t = now
        if now - last_poll > 0.2:
            last_poll = now
            run = agent.http.get(f"/runs/{run_id}").json()
            if run["progress"] > 0:
                seen.progressed = True
                if case.way != "timeout" and case.phase == "traffic" and trigger_t is None:
                    trigger_t = now
            if run["status"] not in ("queued", "running"):
                seen.at_stop = (0, len(_alive(seen.pids)))
                return "ended"
        if trigger_t is not None and now >= trigger_t + case.at_s:
            break
        time.sleep(0.01)
    seen.at_stop = (seen.live_namespaces(), len(_alive(seen.pids)))
    phase = "setup" if not seen.progressed else "teardown" if seen.tearing_down() else "traffic"
    if case.way == "cancel":
        agent.http.delete(f"/runs/{run_id}")
    elif case.way == "kill":
        agent.proc.send_signal(signal.SIGKILL)
        agent.proc.wait(timeout=30)
    return phase


def _final(agent: Agent, run_id: str) -> dict:
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        run = agent.http.get(f"/runs/{run_id}", params={"wait_s": 5}).json()
        if run["status"] not in ("queued", "running"):
            return run
    raise AssertionError(f"run {run_id} did not end: {run}")


@pytest.fixture
def load(tmp_path):
    """A CPU burner and a disk writer (fsync'd 1 MiB blocks, the file rewound at 64 MiB) for the test."""
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    writer = subprocess.Popen([sys.executable, "-c", (
        "import os, sys\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)\n"
        "block = os.urandom(1 << 20)\n"
        "while True:\n"
        "    for _ in range(64):\n"
        "        os.write(fd, block)\n"
        "        os.fsync(fd)\n"
        "    os.lseek(fd, 0, 0)\n"), str(tmp_path / "load.bin")])
    yield
    for p in (burner, writer):
        p.kill()
        p.wait()


def test_runs_stopped_at_random_points_under_load_leave_nothing(need_linux, load, tmp_path):
    if not need_linux.loss_mechanism or not need_linux.delay_mechanism:
        pytest.skip("linux engine: no loss or delay mechanism on this host")
    plan = _plan().model_dump(mode="json")
    lanes = _lanes(random.Random(SEED))
    t_start = time.monotonic()
    with ThreadPoolExecutor(len(lanes)) as ex:
        futures = [ex.submit(_lane, f"lane{k}", lane, plan, tmp_path) for k, lane in enumerate(lanes)]
        reports = [f.result() for f in futures]
    wall = time.monotonic() - t_start
    print("\n" + "\n".join(line for report in reports for line in report) + f"\nwall time {wall:.1f} s")
    cases = [c for lane in lanes for c in lane]
    assert len(cases) == 9 and {(c.way, c.phase) for c in cases} == {(w, p) for w in WAYS for p in PHASES}


def _lane(name: str, cases: list[Case], plan: dict, tmp_path: Path) -> list[str]:
    """Run ``cases`` one after the other, each on its own agent (the next one starting while a run
    goes on), check what each left; returns a report line per run."""
    report = []
    agents: list[Agent] = []
    previous: Seen | None = None

    def start(i: int) -> Agent:
        case = cases[i]
        agents.append(Agent(tmp_path, f"{name}-{i}-{case.way}-{case.phase}",
                            budget_s=case.at_s if case.way == "timeout" else 600.0))
        return agents[-1]

    next_agent: Agent | None = None
    try:
        for i, case in enumerate(cases):
            agent = next_agent or start(i)
            next_agent = None
            agent.ready()
            posted_t = time.monotonic()
            r = agent.http.post("/runs", json=plan)
            assert r.status_code == 202, r.text
            run_id = r.json()["id"]
            if i + 1 < len(cases):
                next_agent = start(i + 1)  # starts (imports, probes) while this run goes on
            seen = Seen()
            phase = _stop_run(agent, case, run_id, seen, posted_t)
            assert seen.prefix is not None or case.phase == "setup", f"{case}: no record of the run seen"
            status = _ended(agent, case, run_id, seen)
            if previous is not None:
                # this run started with a sweep (before its record): the killed one's leftovers are gone
                _check_gone(previous, f"after the next run's sweep ({cases[i - 1]})")
            previous = seen if case.way == "kill" else None
            report.append(f"{name} {case.way:8} {case.phase:9} at {case.at_s:6.3f} s: prefix {seen.prefix}, "
                          f"observed {phase:8} ({seen.at_stop[0]}/{len(seen.namespaces)} namespaces, "
                          f"{seen.at_stop[1]} processes alive at the stop) -> {status}, "
                          f"{time.monotonic() - posted_t:.1f} s")
        # the last run was killed: an agent started now sweeps at start-up
        sweeper = Agent(tmp_path, f"{name}-sweeper")
        agents.append(sweeper)
        sweeper.ready()
        _check_gone(previous, f"after the next agent's start-up sweep ({cases[-1]})")
    finally:
        for agent in agents:
            agent.stop()
    return report


def _ended(agent: Agent, case: Case, run_id: str, seen: Seen) -> str:
    """After the stop: a killed agent's processes died with it (``PR_SET_PDEATHSIG``, before any
    sweep); a timed-out or cancelled run ends with the status its stop point gives and leaves
    nothing (no sweep needed). Returns the run's status (``killed`` for a kill)."""
    if case.way == "kill":
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and (_alive(seen.pids) or _processes_in(set(seen.namespaces.values()))):
            time.sleep(0.1)
        assert not _alive(seen.pids), f"{case}: processes outlived the killed agent: {_alive(seen.pids)}"
        inside = _processes_in(set(seen.namespaces.values()))
        assert not inside, f"{case}: processes in its namespaces outlived the killed agent: {inside}"
        return "killed"
    run = _final(agent, run_id)
    # stopped before the traffic's end: the budget fails the run, a cancel cancels it; later, the
    # run may have finished first
    expected = {("timeout", "setup"): {"failed"}, ("timeout", "traffic"): {"failed"},
                ("cancel", "setup"): {"cancelled"}, ("cancel", "traffic"): {"cancelled"}}
    assert run["status"] in expected.get((case.way, case.phase), {"succeeded", "failed", "cancelled"}), (case, run)
    if run["status"] == "failed":
        assert "time budget" in run["error"], run
    _check_gone(seen, f"right after the run ended ({case})")
    agent.stop()
    return run["status"]


def _check_gone(seen: Seen, when: str) -> None:
    """Nothing of the run ``seen`` remains: leftovers of its prefix, recorded processes, processes
    in its namespaces."""
    if seen.prefix is None:
        return
    try:
        assert_no_leftovers(seen.prefix)
    except AssertionError as exc:
        raise AssertionError(f"{when}: {exc}") from None
    assert not _alive(seen.pids), f"{when}: processes of {seen.prefix} alive: {_alive(seen.pids)}"
    inside = _processes_in(set(seen.namespaces.values()))
    assert not inside, f"{when}: processes in the namespaces of {seen.prefix}: {inside}"


def test_sigterm_of_the_agent_or_of_a_script_tears_the_run_down(need_linux, tmp_path):
    """SIGTERM during the traffic: the agent (uvicorn's shutdown cancels its runs and waits for their
    teardown) and a script running the engine in its main thread (SIGTERM becomes a cancel) both
    exit with nothing of their run left, before any sweep."""
    plan = _plan(30.0)  # stopped well before its end
    script = tmp_path / "script.py"
    script.write_text(
        "import json, sys\n"
        "from subflow.runplan.document import RunPlan\n"
        "from subflow_engines import linux\n"
        "linux.run(RunPlan.model_validate(json.load(open(sys.argv[1]))))\n")
    (tmp_path / "plan.json").write_text(plan.model_dump_json())
    agent = Agent(tmp_path, "sigterm")
    procs = {}
    try:
        procs["script"] = subprocess.Popen([sys.executable, str(script), str(tmp_path / "plan.json")],
                                           stderr=subprocess.PIPE, text=True)
        agent.ready()
        assert agent.http.post("/runs", json=plan.model_dump(mode="json")).status_code == 202
        procs["agent"] = agent.proc
        seen = {name: Seen() for name in procs}
        deadline = time.monotonic() + 25
        while time.monotonic() < deadline and not all(len(_alive(s.pids)) >= 3 for s in seen.values()):
            for name, s in seen.items():
                s.look(procs[name].pid)  # namespaces, then the delay lines and iperf3 server, client
            time.sleep(0.05)
        for name, s in seen.items():
            assert s.prefix is not None and len(_alive(s.pids)) >= 3, (name, s)
        for p in procs.values():
            p.terminate()
        t_term = time.monotonic()
        agent.proc.wait(timeout=60)  # uvicorn re-raises the SIGTERM after its shutdown: the code is -15
        # its run was cancelled, not waited for: 20 s of its traffic were still to come
        assert time.monotonic() - t_term < 15.0
        assert "Application shutdown complete" in agent.log.read_text(errors="replace"), tail(agent.log)
        procs["script"].wait(timeout=60)
        assert "RunCancelled" in procs["script"].stderr.read()
        for name, s in seen.items():
            _check_gone(s, f"after SIGTERM of the {name}")
    finally:
        agent.stop()
        if "script" in procs and procs["script"].poll() is None:
            procs["script"].kill()
            procs["script"].wait()

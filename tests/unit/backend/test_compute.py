"""Heavy computations in a process pool (subflow_backend.compute): the answer comes back, a domain error
comes back as itself (class, message, attributes), and the work ran in another process."""

from __future__ import annotations

import os

import pytest

from subflow.errors import LinkInvalid

from subflow_backend import compute


def _fail(link: str) -> None:
    raise LinkInvalid(link, "delay_ms", -1.0, "must be >= 0")


def test_the_pool_answers_from_another_process_and_raises_domain_errors_as_they_were():
    assert compute.run(os.getpid) != os.getpid()
    assert compute.run(divmod, 17, 5) == (3, 2)
    with pytest.raises(LinkInvalid) as caught:
        compute.run(_fail, "l7")
    assert str(caught.value) == "link 'l7': delay_ms = -1.0: must be >= 0"
    assert vars(caught.value) == vars(LinkInvalid("l7", "delay_ms", -1.0, "must be >= 0"))


def test_zero_processes_compute_in_the_calling_thread(monkeypatch):
    monkeypatch.setattr(compute.settings, "INLINE_COMPUTE_PROCESSES", 0)
    assert compute.run(os.getpid) == os.getpid()


def test_the_pool_runs_at_a_lower_priority():
    assert compute.run(os.nice, 0) == os.nice(0) + compute.settings.INLINE_COMPUTE_NICE


def test_a_pool_process_ends_when_its_parent_is_killed(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    script = ("from subflow_backend import compute; import os, sys; "
              "print(compute.run(os.getpid), flush=True); sys.stdin.read()")
    parent = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(child, signal.SIGKILL)
    raise AssertionError(f"pool process {child} outlived its parent")

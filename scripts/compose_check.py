"""Drive a running compose stack through its REST API (used by scripts/test_compose.sh).

Standard library only (it runs with the host's ``python3``, before any virtualenv exists)::

    python3 scripts/compose_check.py compare   BASE_URL USER PASSWORD
    python3 scripts/compose_check.py submit    BASE_URL USER PASSWORD  -> prints the comparison's path
    python3 scripts/compose_check.py wait      BASE_URL USER PASSWORD PATH TIMEOUT_S
    python3 scripts/compose_check.py health    BASE_URL

``compare`` runs naval-direct-move (loaded by the backend's start-up) with ``sptcp`` and ``mptcp``
and checks the result document: both strategies, one summary per flow, a positive mean throughput
(Mbit/s) and Jain's index in (0, 1]. ``submit`` starts a 40-unit sweep (long enough to kill the
worker while it runs); ``wait`` (after the kill) polls it until it ends and exits 0 if it ``succeeded`` or
``failed`` with a reason, 1 if it is still queued or running after ``TIMEOUT_S`` seconds.
Exit status 1 with the reason on stderr when a check fails.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

SCENARIO = "naval-direct-move"


class Api:
    """A signed-in client of ``base`` (``/api`` paths)."""

    def __init__(self, base: str, user: str | None = None, password: str | None = None):
        self.base = base.rstrip("/")
        self.token: str | None = None
        if user is not None:
            form = urllib.parse.urlencode({"username": user, "password": password}).encode()
            self.token = self.call("POST", "/api/auth/login", form, "application/x-www-form-urlencoded")["access_token"]

    def call(self, method: str, path: str, body: bytes | None = None, ctype: str = "application/json") -> dict:
        request = urllib.request.Request(self.base + path, data=body, method=method)
        if body is not None:
            request.add_header("Content-Type", ctype)
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise SystemExit(f"{method} {path}: HTTP {exc.code}: {exc.read()[:500]!r}") from None

    def post(self, path: str, payload: dict) -> dict:
        return self.call("POST", path, json.dumps(payload).encode())

    def scenario_id(self) -> str:
        page = self.call("GET", "/api/scenarios?limit=100")
        ids = [s["id"] for s in page["data"] if s["name"] == SCENARIO]
        if not ids:
            raise SystemExit(f"example scenario {SCENARIO!r} not loaded: {[s['name'] for s in page['data']]}")
        return ids[0]

    def wait(self, path: str, timeout_s: float) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            body = self.call("GET", path)
            if body["status"] not in ("queued", "running"):
                return body
            if time.monotonic() > deadline:
                raise SystemExit(f"{path} still {body['status']} after {timeout_s:g} s "
                                 f"({body.get('units_done')}/{body.get('units_total')} units)")
            time.sleep(1.0)


def compare(api: Api) -> None:
    sid = api.scenario_id()
    started = time.monotonic()
    created = api.post(f"/api/scenarios/{sid}/comparisons", {"strategies": ["sptcp", "mptcp"]})
    body = api.wait(f"/api/scenarios/{sid}/comparisons/{created['id']}", 180)
    if body["status"] != "succeeded":
        raise SystemExit(f"comparison {body['status']}: {body.get('error')}")
    result = body["result"]
    flows = len(result["scenario"]["flows"])
    for name in ("sptcp", "mptcp"):
        summary = result["strategies"][name]["summary"]
        if len(summary["flows"]) != flows:
            raise SystemExit(f"{name}: {len(summary['flows'])} flow summaries for {flows} flows")
        if not summary["mean_mbps"] > 0 or not 0 < summary["jain_index"] <= 1:
            raise SystemExit(f"{name}: implausible summary {summary}")
        print(f"  {name}: mean {summary['mean_mbps']:.3f} Mbit/s over {flows} flows, "
              f"Jain's index {summary['jain_index']:.3f}")
    print(f"  comparison succeeded in {time.monotonic() - started:.1f} s (POST to succeeded)")


def submit(api: Api) -> None:
    sid = api.scenario_id()
    values = [100 + 10 * i for i in range(20)]
    created = api.post(f"/api/scenarios/{sid}/comparisons",
                       {"strategies": ["sptcp", "mptcp"], "repetitions": 2,
                        "sweep": {"parameter": "nodes.uav.range_m", "values": values}})
    print(f"/api/scenarios/{sid}/comparisons/{created['id']}")


def wait(api: Api, path: str, timeout_s: float) -> None:
    started = time.monotonic()
    body = api.wait(path, timeout_s)
    took = time.monotonic() - started
    if body["status"] == "succeeded":
        print(f"  sweep succeeded {took:.0f} s after the worker was back ({body['units_done']}/{body['units_total']} units)")
    elif body["status"] == "failed" and body.get("error"):
        print(f"  sweep failed {took:.0f} s after the worker was back, with a reason: {body['error']}")
    else:
        raise SystemExit(f"sweep ended {body['status']} without a reason: {body}")


def main(argv: list[str]) -> None:
    command, base = argv[0], argv[1]
    if command == "health":
        print(json.dumps(Api(base).call("GET", "/api/health")))
        return
    api = Api(base, argv[2], argv[3])
    if command == "compare":
        compare(api)
    elif command == "submit":
        submit(api)
    elif command == "wait":
        wait(api, argv[4], float(argv[5]))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])

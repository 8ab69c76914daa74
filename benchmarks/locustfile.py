"""Locust users of the load benchmark (run by ``benchmarks/load.py``; loopback only).

``LOAD_KIND`` picks the traffic: ``reads`` (a scenario by id or the first page of the
scenario list, in turn), ``writes`` (each client saves its own scenario again and again, ``PUT`` with
``If-Match``), ``submits`` (comparison submissions of one strategy on naval-direct-move).
``SUBFLOW_TOKEN`` is a write token; ``SCENARIO_ID`` the scenario to read and compare. Each
client sends one request per second (:func:`one_per_second`), starting at a random point of its
first second, so N clients offer N requests/s spread over each second.
A 429 (queue full, with ``Retry-After``) is counted apart from errors (name ``... 429``).
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from pathlib import Path

import gevent
from locust import FastHttpUser, task

KIND = os.environ.get("LOAD_KIND", "reads")
TOKEN = os.environ.get("SUBFLOW_TOKEN", "")
SCENARIO_ID = os.environ.get("SCENARIO_ID", "")
EXAMPLE = json.loads((Path(__file__).resolve().parents[1] / "examples" / "naval-direct-move.json").read_text())


def one_per_second(user: "SubflowClient") -> float:
    """Wait until one second after the start of the user's last request (locust's own
    ``constant_pacing`` counts from the user's creation, so users created together stay in step)."""
    return max(0.0, user.started + 1.0 - time.perf_counter())


class SubflowClient(FastHttpUser):
    wait_time = one_per_second
    started = 0.0

    def on_start(self) -> None:
        # clients are not in step: each starts at a random point of its first second (locust starts a
        # batch of users at the same instant, and constant pacing would keep them firing together)
        gevent.sleep(random.uniform(0.0, 1.0))
        self.headers = {"Authorization": f"Bearer {TOKEN}"}
        if KIND == "writes":
            doc = {**EXAMPLE, "name": f"load-{uuid.uuid4().hex[:10]}"}
            r = self.client.post("/api/scenarios", json=doc, headers=self.headers, name="POST /scenarios (setup)")
            self.own = r.json()["id"]
            self.doc = doc
            self.etag = '"v1"'

    @task
    def work(self) -> None:
        self.started = time.perf_counter()
        if KIND == "reads":  # one of the two reads, in turn
            self.turn = not getattr(self, "turn", random.random() < 0.5)
            if self.turn:
                self.client.get(f"/api/scenarios/{SCENARIO_ID}", headers=self.headers, name="GET /scenarios/{id}")
            else:
                self.client.get("/api/scenarios?limit=20", headers=self.headers, name="GET /scenarios?limit=20")
        elif KIND == "writes":
            self.doc["run"] = {**self.doc["run"], "seed": self.doc["run"].get("seed", 1) + 1}
            with self.client.put(f"/api/scenarios/{self.own}", json=self.doc,
                                 headers={**self.headers, "If-Match": self.etag}, name="PUT /scenarios/{id}",
                                 catch_response=True) as r:
                if r.status_code == 200:
                    self.etag = r.headers.get("ETag", self.etag)
                    r.success()
                else:
                    r.failure(f"HTTP {r.status_code}: {r.text[:200]}")
        else:
            with self.client.post(f"/api/scenarios/{SCENARIO_ID}/comparisons", json={"strategies": ["sptcp"]},
                                  headers=self.headers, name="POST /comparisons", catch_response=True) as r:
                if r.status_code == 202:
                    r.success()
                elif r.status_code == 429 and r.headers.get("Retry-After"):
                    r.success()
                    self.environment.events.request.fire(
                        request_type="POST", name="POST /comparisons 429", response_time=r.request_meta["response_time"],
                        response_length=0, exception=None, context={})
                else:
                    r.failure(f"HTTP {r.status_code}: {r.text[:200]}")

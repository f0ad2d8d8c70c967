"""Locust load of 50 annotators working through their queues (see bench/annotation_bench.py).

Each simulated annotator uses a signed-in session cookie and CSRF token (made beforehand), opens
the annotation page of their next unfinished query, and grades its candidates one by one through
the same API call the page's JavaScript makes, with 1–3 s of thinking between actions (a fast
human needs more to read a chunk).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from pathlib import Path

from locust import HttpUser, between, task

# Sessions made by `annotation_bench.py serve-and-load` (signing in is not what is measured).
SESSIONS = json.loads(Path(os.environ["BENCH_SESSIONS"]).read_text())
_numbers = itertools.count()
CANDIDATE = re.compile(r'data-candidate-id="(\d+)"')


class Annotator(HttpUser):
    wait_time = between(1, 3)

    def on_start(self) -> None:
        self.username = f"bench{next(_numbers) % 50:02d}"
        cookies = SESSIONS[self.username]
        for name, value in cookies.items():
            self.client.cookies.set(name, value)
        self.csrf = cookies["csrftoken"]
        projects = self.client.get("/api/v1/projects/", name="projects").json()
        self.project = next(p["id"] for p in projects if p["name"] == "Bench")
        queue = self.client.get(f"/api/v1/projects/{self.project}/queue/", name="queue").json()
        self.todo = [i["query_id"] for i in queue["items"] if i["status"] != "done"]
        self.pending: list[int] = []

    @task
    def step(self) -> None:
        if not self.pending:
            if not self.todo:
                return
            query_id = self.todo.pop(0)
            page = self.client.get(
                f"/projects/{self.project}/annotate/{query_id}/", name="annotation page"
            )
            self.pending = [int(c) for c in CANDIDATE.findall(page.text)]
            return
        candidate = self.pending.pop(0)
        grade = random.choices([0, 1, 2], weights=[75, 15, 10])[0]
        with self.client.put(
            f"/api/v1/projects/{self.project}/candidates/{candidate}/judgment/",
            json={"grade": grade},
            headers={"X-CSRFToken": self.csrf},
            name="grade save",
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}: {response.text[:200]}")

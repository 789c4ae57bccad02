"""Read and adjust Hermes' ``cron/jobs.json``: make jobs due, read their outcome."""

from __future__ import annotations

import copy
import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hermetic.errors import HarnessError

#: ``last_status`` of a run that failed: 0.22 marks a job whose provider has no credentials
#: ``blocked_config`` (its ``last_error`` still carries Hermes' message); older Hermes ``error``.
FAILED_STATUSES = ("error", "blocked_config")


@dataclass(frozen=True)
class JobState:
    """What Hermes recorded about a job after its last run."""

    id: str
    name: str
    last_status: str | None
    last_error: str | None
    last_run_at: str | None
    next_run_at: str | None

    @property
    def failed(self) -> bool:
        """Hermes recorded the last run as failed (in any release's words)."""
        return self.last_status in FAILED_STATUSES

    @property
    def taken(self) -> bool:
        """A scheduler has taken the job made due (:meth:`JobsFile.make_due`): it ran it, or
        moved its next run into the future before running it (``advance_next_run``: 0.16.0, 0.19.0
        and 0.22 call it on their due jobs before they run any of them)."""
        if self.last_run_at:
            return True
        try:
            when = datetime.fromisoformat(self.next_run_at or "")
        except ValueError:
            return False
        return when.tzinfo is not None and when > datetime.now(UTC)

    def describe(self) -> str:
        return (
            f"last_status={self.last_status} last_run_at={self.last_run_at} "
            f"next_run_at={self.next_run_at} last_error={self.last_error!r}"
        )


class JobsFile:
    """``$HERMES_HOME/cron/jobs.json``, read fresh on every call (Hermes rewrites it each tick)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def runs_in_flight(self) -> int | None:
        """How many job runs Hermes' ``cron/executions.db`` still has under way (claimed or
        running), or None where the build keeps no such record (before 0.19). A run writes its
        job's ``last_run_at`` into jobs.json a moment before it finishes its execution record;
        a gateway stopped in between marks the finished run interrupted (0.19.0's
        ``mark_running_jobs_interrupted``), so whoever stops it waits for this to reach 0."""
        database = self.path.parent / "executions.db"
        if not database.is_file():
            return None
        try:
            with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=1) as db:
                (count,) = db.execute(
                    "SELECT count(*) FROM executions WHERE status IN ('claimed', 'running')"
                ).fetchone()
        except sqlite3.Error:
            return None  # being created, or another layout: jobs.json alone decides
        return int(count)

    def add(
        self, job_id: str, name: str, prompt: str, *, snapshot: tuple[str, str], **fields: Any
    ) -> str:
        """Write a recurring job the way ``hermes cron create`` stores one (it costs ~1 s of
        Hermes start-up to create it through the CLI; the scheduler cannot tell the difference).

        ``snapshot`` is the (provider, default model) of ``config.yaml`` that Hermes records at
        creation: its drift guard skips the job if either changes later.
        ``fields`` pin the job's own ``model``/``provider``/``base_url``.
        """
        try:
            data = self._load()
        except HarnessError:
            if self.path.exists():
                raise
            self.path.parent.mkdir(parents=True, exist_ok=True)
            data = {"jobs": []}
        now = datetime.now(UTC)
        job: dict[str, Any] = {
            "id": job_id,
            "name": name,
            "prompt": prompt,
            "skills": [],
            "skill": None,
            "model": None,
            "provider": None,
            "provider_snapshot": snapshot[0],
            "model_snapshot": snapshot[1],
            "base_url": None,
            "script": None,
            "no_agent": False,
            "context_from": None,
            "schedule": {"kind": "interval", "minutes": 1, "display": "every 1m"},
            "schedule_display": "every 1m",
            "repeat": {"times": None, "completed": 0},
            "enabled": True,
            "state": "scheduled",
            "paused_at": None,
            "paused_reason": None,
            "created_at": now.isoformat(),
            "next_run_at": (now + timedelta(minutes=1)).isoformat(),
            "last_run_at": None,
            "last_status": None,
            "last_error": None,
            "last_delivery_error": None,
            "deliver": "local",
            "origin": None,
            "enabled_toolsets": None,
            "workdir": None,
            "fire_claim": None,
            **fields,
        }
        data["jobs"].append(job)
        data["updated_at"] = now.isoformat()
        self._save(data)
        return job_id

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            raise HarnessError(f"{self.path} does not exist: no job was created") from None
        except json.JSONDecodeError as exc:
            raise HarnessError(f"{self.path} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
            raise HarnessError(f"{self.path} has no 'jobs' list")
        return data

    def _save(self, data: dict[str, Any]) -> None:
        # Write-then-rename, as Hermes does, so a reader never sees half a file.
        temporary = self.path.with_suffix(".json.hermetic-tmp")
        temporary.write_text(json.dumps(data, indent=2), "utf-8")
        os.replace(temporary, self.path)

    def raw(self, job_id: str) -> dict[str, Any]:
        for job in self._load()["jobs"]:
            if job.get("id") == job_id:
                return job
        raise HarnessError(f"no job {job_id!r} in {self.path}")

    def state(self, job_id: str) -> JobState:
        job = self.raw(job_id)
        return JobState(
            id=job_id,
            name=str(job.get("name", "")),
            last_status=job.get("last_status"),
            last_error=job.get("last_error"),
            last_run_at=job.get("last_run_at"),
            next_run_at=job.get("next_run_at"),
        )

    def make_due(self, job_ids: list[str] | None = None) -> None:
        """Move ``next_run_at`` of the given (default: all) jobs 5 s into the past.

        Inside every release's grace window: for an ``every 1m`` job it is 120 s in 0.16.0 to
        0.19.0, and 0.16.0/0.17.0 *skip* (and move forward) a job due for longer than that,
        where 0.18.0+ run it once.
        """
        data = self._load()
        past = (datetime.now(UTC) - timedelta(seconds=5)).isoformat()
        wanted = None if job_ids is None else set(job_ids)
        for job in data["jobs"]:
            if wanted is None or job.get("id") in wanted:
                job["next_run_at"] = past
        self._save(data)

    def clone(self, job_id: str, new_id: str, **fields: Any) -> str:
        """Add a copy of a job that ``hermes cron create`` made, with a new id and fields.

        Creating many jobs through the CLI costs ~0.7 s each; a copy of a real one is
        indistinguishable to the scheduler and keeps load scenarios fast.
        """
        data = self._load()
        source = next((job for job in data["jobs"] if job.get("id") == job_id), None)
        if source is None:
            raise HarnessError(f"no job {job_id!r} in {self.path}")
        data["jobs"].append({**copy.deepcopy(source), "id": new_id, **fields})
        self._save(data)
        return new_id

    def update(self, job_id: str, **fields: Any) -> None:
        """Set fields of one job (e.g. a per-job ``model``/``provider``/``base_url``)."""
        data = self._load()
        for job in data["jobs"]:
            if job.get("id") == job_id:
                job.update(fields)
                self._save(data)
                return
        raise HarnessError(f"no job {job_id!r} in {self.path}")

"""A stand-in for the developer's real home: its own ``~/.hermes`` pointing at its own provider.

The isolation scenarios put one of these where the developer's home would be (``HOME`` and
``HERMES_HOME`` of the harness process) and prove that a run neither reads nor writes it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from hermetic.isolation.home_snapshot import differences, fingerprint

USERS_MODEL = "users-own-model"
MARKER = "hermetic-marker.txt"


@dataclass
class UserHome:
    """A home folder with a complete Hermes set-up of its own, and its fingerprint."""

    root: Path
    before: dict[str, str]

    @property
    def hermes_home(self) -> Path:
        return self.root / ".hermes"

    @classmethod
    def create(cls, provider_api_base: str) -> UserHome:
        root = Path(tempfile.mkdtemp(prefix="hermetic-user-home-"))
        hermes = root / ".hermes"
        (hermes / "cron").mkdir(parents=True)
        config = {
            "model": {
                "provider": "custom",
                "default": USERS_MODEL,
                "base_url": provider_api_base,
                "api_key": "sk-users-own-key",
                "context_length": 131072,
            },
            "security": {"allow_lazy_installs": False, "tirith_enabled": False},
        }
        (hermes / "config.yaml").write_text(yaml.safe_dump(config), "utf-8")
        # A due job of the user's own: if a run used this home, the user's provider would hear.
        past = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
        jobs = {
            "jobs": [
                {
                    "id": "usersownjob1",
                    "name": "users-own-job",
                    "prompt": "Users own job",
                    "schedule": {"kind": "interval", "minutes": 1},
                    "next_run_at": past,
                    "enabled": True,
                    "state": "scheduled",
                }
            ]
        }
        (hermes / "cron" / "jobs.json").write_text(json.dumps(jobs, indent=2), "utf-8")
        (root / MARKER).write_text(
            "this home belongs to the developer; the suite must not touch it\n"
        )
        return cls(root=root, before=fingerprint(root))

    def changes(self) -> list[str]:
        """What differs from the fingerprint taken at creation (empty: byte-identical)."""
        return differences(self.before, fingerprint(self.root))

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

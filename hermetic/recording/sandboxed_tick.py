"""One real ``hermes cron tick`` against the mock serving exactly one recorded answer, with
hermetic's hook observer as the plugin: what Hermes passes to ``api_request_error`` for it.

Run by :mod:`hermetic.recording.hermes_tells` in a network namespace of its own (loopback
only), like every other Hermes run, with a Hermes already installed (nothing is installed
here):

    python -m hermetic.recording.sandboxed_tick --answers FILE --name NAME --hermes PATH

It prints two lines: what Hermes reported (:func:`hermetic.parts.hook_observer.reported`) and
whether Hermes recognised the answer. A run that cannot be made is one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from hermetic.companions import HOOK_OBSERVER, companion_folder
from hermetic.corpus import CorpusError, ProviderAnswer
from hermetic.corpus.recorded import load_recorded
from hermetic.errors import HarnessError
from hermetic.hermes.install.protocols import protocol_named
from hermetic.parts.hook_observer import OBSERVED_FILE, ObservedCall, reported
from hermetic.parts.wire_protocol import WireProtocolPart
from hermetic.plan.resolve import settings_from_userdata
from hermetic.world import build_world

__all__ = ["MODEL", "observed_calls", "recognised", "main"]

#: The job's model: the one the provider no longer serves.
MODEL = "gone-model"
#: The reasons that say Hermes did not tell what the answer is about.
UNRECOGNISED = frozenset({None, "unknown", "format_error"})
EXIT_CANNOT = 2


def observed_calls(answer: ProviderAnswer, hermes: Path) -> list[ObservedCall]:
    """Every ``api_request_error`` call of one tick of one job whose provider answers
    ``answer`` (a recorded one: the world's corpus serves it beside the bundled answers) over
    its protocol, with Hermes' default retries (as users run it)."""
    settings = settings_from_userdata(
        {"plugin": str(companion_folder(HOOK_OBSERVER)), "hermes": str(hermes)}
    )
    profile = replace(settings.profile, recorded=(answer,))
    settings = replace(settings, profile=profile)
    with build_world(settings) as world:
        world.install_plugin()  # the observer is the plugin: it changes nothing Hermes says
        world.use(WireProtocolPart).speak(protocol_named(answer.protocol))
        world.config.tune(api_max_retries=None)
        world.providers.answer_in_words(MODEL, answer.provider, answer.words)
        world.scheduler.create_job(MODEL)
        world.scheduler.tick()
        path = world.sandbox.hermes_home / OBSERVED_FILE
        lines = path.read_text("utf-8", errors="replace").splitlines() if path.is_file() else []
    calls = [call for line in lines if (call := ObservedCall.from_line(line))]
    return [call for call in calls if call.model in (None, MODEL)]


def recognised(answer: ProviderAnswer, calls: list[ObservedCall]) -> str:
    """Whether Hermes recognised ``answer``, in one line."""
    reasons = list(dict.fromkeys(call.reason for call in calls))
    if not calls:
        return f"Hermes did not tell the plugin about {answer.provider}'s answer at all"
    if all(reason not in UNRECOGNISED for reason in reasons):
        return f"Hermes recognises {answer.provider}'s answer: reason={reasons[0]!r}"
    return (
        f"Hermes does not recognise {answer.provider}'s answer (reason="
        f"{', '.join(repr(r) for r in reasons)}): a plugin alerts on it only by its status and "
        "its words"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hermetic.recording.sandboxed_tick")
    parser.add_argument("--answers", required=True, type=Path)
    parser.add_argument("--name", required=True)
    parser.add_argument("--hermes", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        recorded = load_recorded(args.answers)
        answer = recorded.named(args.name)
        calls = observed_calls(answer, args.hermes)
    except (CorpusError, HarnessError, AssertionError, KeyError) as exc:
        message = str(exc).strip().splitlines()
        print(message[0] if message else exc.__class__.__name__, file=sys.stderr)
        return EXIT_CANNOT
    print(f"{reported(calls)}, for one job", flush=True)
    print(recognised(answer, calls), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

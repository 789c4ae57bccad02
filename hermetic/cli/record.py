"""``hermetic record``: ask a real provider once for a failing request (a model that is gone),
with a key named by its environment variable, and keep the answer, redacted, as a corpus entry
in the plugin's recorded answers file (hermetic.recording)."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

from hermetic.cli.options import EXIT_PASSED, fail

#: The protocols ``--protocol`` offers (hermetic.recording.asking.ASKABLE, kept equal by a test:
#: the parser is built without importing the recording package).
PROTOCOL_CHOICES = ("chat_completions", "anthropic_messages", "codex_responses")


def register(commands: argparse._SubParsersAction) -> None:
    record = commands.add_parser(
        "record",
        help="record a real provider's answer to a failing request, for the plugin's profile",
        description="Ask a provider once, from your machine, for a model it no longer serves "
        "(or any failing request), and keep its answer as a corpus entry in --to: provider, "
        "protocol, status, the headers that matter, the body as sent, the day and the URL "
        "asked. Request and organisation ids, account names and the key are redacted before "
        "anything is written; a successful answer is refused. Name the file in hermetic.toml's "
        "[providers] answers to serve it in every run.",
    )
    record.add_argument("--provider", required=True, help="the provider's name, as rows show it")
    record.add_argument("--base-url", required=True, help="the provider's API base URL")
    record.add_argument("--model", required=True, help="the model to ask for (one that is gone)")
    record.add_argument(
        "--key-env",
        required=True,
        metavar="VAR",
        help="the environment variable holding the key (its value is never printed or written)",
    )
    record.add_argument("--to", required=True, type=Path, help="the recorded answers file")
    record.add_argument(
        "--protocol",
        default="chat_completions",
        choices=PROTOCOL_CHOICES,
        help="the wire protocol to ask over (default: chat_completions)",
    )
    record.add_argument(
        "--situation",
        default="removed-model",
        help="what the answer is about: removed-model (default), retired-model, "
        "unknown-model, rate-limit, overloaded, server-error",
    )


def main(args: argparse.Namespace) -> int:
    from hermetic.corpus.examples import served_as
    from hermetic.errors import ConfigError
    from hermetic.recording import Recording, hermes_tells, key_from, record_answer

    try:
        recording = Recording(
            provider=args.provider,
            protocol=args.protocol,
            situation=args.situation,
            base_url=args.base_url,
            model=args.model,
            key=key_from(args.key_env),
            to=args.to,
            day=datetime.datetime.now(datetime.UTC).date(),
        )
        answer = record_answer(recording)
    except ConfigError as exc:
        return fail(str(exc))
    print(
        f"recorded {answer.provider}'s {answer.status} ({answer.words}) as {answer.name!r} "
        f'in {args.to}; name the file in hermetic.toml: [providers] answers = ["{args.to}"]',
        flush=True,
    )
    print(f"in a run, it is {served_as(answer)}", flush=True)
    for line in hermes_tells(args.to, answer.name, without=args.key_env):
        print(line, flush=True)
    return EXIT_PASSED

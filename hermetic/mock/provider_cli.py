"""The mock provider's command line: ``python -m hermetic.mock`` (see ``--help``).

Prints the base URL, logs every request to stderr, and serves until Ctrl-C or SIGTERM. Errors
are one ``mock_provider: error: ...`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import textwrap
import threading
from collections.abc import Iterator, Mapping, Sequence
from types import FrameType
from typing import Any, NoReturn

from hermetic.corpus import CorpusError, ProviderAnswer, bundled_corpus
from hermetic.mock.provider_answers import FILE_PROVIDER_ANSWERS, PRESETS, SUCCESS
from hermetic.mock.provider_server import MockProvider
from hermetic.mock.routes import CONTROL_ROUTES
from hermetic.mock.script import Script, ScriptError, ScriptFile, load_script_file, parse_script

__all__ = ["build_parser", "main"]

PROG = "mock_provider"

# The parent of every peer's logger: the CLI shows the provider's traffic and the server's
# warnings alike.
LOG = logging.getLogger("hermetic.mock")


class _OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one ``mock_provider: error: ...`` line, exit status 2."""

    def error(self, message: str) -> NoReturn:
        _print_error(f"{message} (see --help)")
        raise SystemExit(2)


def _print_error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)


def _port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 65535, got {text!r}")
    return port


def _provider_name(text: str) -> str:
    try:
        return bundled_corpus().provider(text)
    except CorpusError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _model_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("model name must not be empty")
    return text


_HELP_WIDTH = 80

_DESCRIPTION = """\
Run a local mock of an OpenAI-compatible model provider, so Hermes Agent can be
tested against models that work, have been removed (404 model_not_found), are
rate limited, fail, hang or drop the connection. Each model follows a script of
answers; a request for a model or route nobody scripted gets a loud HTTP 418
with header 'X-Hermetic-Mock: unmatched', never something a provider would send.

Prints its base URL as the first line on stdout (point Hermes at <base URL>/v1),
logs every request to stderr, and serves until Ctrl-C or SIGTERM."""

_SCRIPT_FILE_EXAMPLE = """\
script file (--scenario FILE, .yaml/.yml or .json):
  models:
    gone-model: model_not_found           # an answer name: every request
    healthy-model: success
    flaky:                                # a list of stages, in order:
      - {answer: server_error, times: 2}  #   requests 1-2 get a 500,
      - {answer: success}                 #   the last stage answers forever
    slow: {answer: hang, seconds: 5}      # a mapping: one answer + settings
    limited: {answer: rate_limit, headers: {Retry-After: "2"}}
    claude-gone: {answer: model_not_found, provider: Anthropic}
    claude-busy:                          # one of its answers, by [name]:
      answer: overloaded                  #   Anthropic's error inside its
      provider: Anthropic                 #   stream (requests that stream)
      words: anthropic-stream-overloaded
  provider: OpenRouter                    # optional: in its words, where it can

  answer keys: answer (required); status (100-599; a 1xx is interim in HTTP, so
  clients keep waiting, and 204/304 carry no body); body (JSON object or array,
  or a string sent as text/plain); headers (name: "string"); content (reply
  text, success/hang only); seconds (hang only, required); times (a list stage;
  every stage but the last needs it); provider (the answer in that provider's
  published words: model_not_found, model_gone, rate_limit, overloaded,
  server_error); words
  (which of the provider's answers, when it has several: its words or [name];
  one sent inside an event stream, a 200 and then the error, answers only a
  request that streams, any other a loud 418). Presets are defaults;
  your keys win. A model's stages count its chat requests since it was scripted
  or last reset."""

_EXAMPLES = """\
examples:
  python -m hermetic.mock --serve gpt-4o-mini --remove gpt-3.5-turbo
      # prints e.g. http://127.0.0.1:43123 ; point Hermes at
      # http://127.0.0.1:43123/v1 and a chat naming gpt-3.5-turbo gets a 404.
  python -m hermetic.mock --provider Anthropic --remove claude-3-opus
      # the removed model gets Anthropic's 404 (not_found_error), not OpenAI's
  python -m hermetic.mock --port 8099 --scenario scripts.yaml
  curl -X PUT http://127.0.0.1:8099/__hermetic/models/flaky \\
       -d '[{"answer": "overloaded", "times": 3}, "success"]'
  curl http://127.0.0.1:8099/__hermetic/journal/counts

exit status: 0 after Ctrl-C or SIGTERM; 2 for a bad option or script file
(one line on stderr naming the file and field)."""


def _answers_help() -> str:
    rows = {name: preset.summary for name, preset in PRESETS.items()}
    return "answers (what a chat request for the model gets):\n" + _table(rows)


_PROTOCOL_NAMES = {
    "anthropic_messages": "Messages API",
    "codex_responses": "Responses API",
    "bedrock_converse": "Bedrock Converse",
}


def _listed(answer: ProviderAnswer) -> str:
    over = _PROTOCOL_NAMES.get(answer.protocol)
    return f"{answer.words} [{answer.name}{', ' + over if over else ''}]"


def _providers_help() -> str:
    corpus = bundled_corpus()
    rows = {
        provider: "; ".join(_listed(answer) for answer in corpus.of(provider))
        for provider in corpus.providers
    }
    return (
        "providers (--provider NAME, or provider: NAME in a script file; any spelling,\n"
        f"e.g. azure-openai): {', '.join(FILE_PROVIDER_ANSWERS)}\n"
        "come in the provider's own published words (hermetic/corpus/answers.toml), and\n"
        "an answer naming its provider can also be its server_error:\n" + _table(rows)
    )


def _table(rows: Mapping[str, str]) -> str:
    """Two columns, the second wrapped to fit an 80-column terminal."""
    width = max(len(key) for key in rows)
    return "\n".join(
        textwrap.fill(
            text,
            width=_HELP_WIDTH,
            initial_indent=f"  {key:<{width}}  ",
            subsequent_indent=" " * (width + 4),
            break_on_hyphens=False,  # an answer's name is one word to copy
        )
        for key, text in rows.items()
    )


def build_parser() -> argparse.ArgumentParser:
    epilog = "\n\n".join(
        [
            _answers_help(),
            _providers_help(),
            _SCRIPT_FILE_EXAMPLE,
            "control API (JSON under <base URL>/__hermetic/, never journaled):\n"
            + _table(CONTROL_ROUTES),
            _EXAMPLES,
        ]
    )
    parser = _OneLineErrorParser(
        prog=PROG,
        description=_DESCRIPTION,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="loopback address to listen on; anything else is refused (default: %(default)s)",
    )
    parser.add_argument(
        "--port",
        type=_port_number,
        default=0,
        help="TCP port; 0 picks a free one (default: %(default)s)",
    )
    parser.add_argument(
        "--scenario",
        metavar="FILE",
        help="script models from a YAML or JSON script file (format below)",
    )
    parser.add_argument(
        "--provider",
        metavar="NAME",
        type=_provider_name,
        help="answer in this provider's published words (providers below): --remove, "
        "--retire and the script file's answers that can",
    )
    for option, _answer, help_text in _ROLES:
        parser.add_argument(
            option,
            metavar="MODEL",
            action="append",
            default=[],
            type=_model_name,
            help=f"{help_text} (repeatable)",
        )
    return parser


# Option, the answer it scripts, its help line.
_ROLES = (
    ("--serve", SUCCESS, "answer MODEL with success: 200, listed in /v1/models"),
    (
        "--remove",
        "model_not_found",
        "answer MODEL with model_not_found (404), like a removed model",
    ),
    ("--retire", "model_gone", "answer MODEL with model_gone (410), like a retired model"),
)


def _cli_scripts(args: argparse.Namespace) -> dict[str, Script]:
    """The script file's scripts plus the --serve/--remove/--retire ones.

    Raises ValueError (ScriptError for the file) when a model is given two scripts.
    """
    provider = args.provider
    script_file = load_script_file(args.scenario, provider) if args.scenario else ScriptFile({})
    chosen: dict[str, tuple[str, Script]] = {}
    for option, answer, _help in _ROLES:
        for model in getattr(args, option.removeprefix("--")):
            if model in script_file.models:
                raise ValueError(
                    f"model {model!r} is scripted both in {script_file.source} and by {option}"
                )
            earlier = chosen.get(model)
            if earlier is not None and earlier[0] != option:
                raise ValueError(f"model {model!r} given to both {earlier[0]} and {option}")
            spec = answer if provider is None else {"answer": answer, "provider": provider}
            try:
                chosen[model] = (option, parse_script(spec))
            except ScriptError as exc:
                raise ValueError(f"{option} with --provider {provider}: {exc.detail}") from None
    scripts = dict(script_file.models)
    scripts.update({model: script for model, (_, script) in chosen.items()})
    return scripts


def _install_stop_handlers(stop: threading.Event) -> dict[int, Any]:
    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, request_stop)
    return previous


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mock from the command line; returns the exit status.

    argparse raises SystemExit itself for ``--help`` (0) and usage errors (2).
    """
    args = build_parser().parse_args(argv)
    try:
        provider = MockProvider(args.host, args.port)
        for model, script in _cli_scripts(args).items():
            provider.script(model, script)
        provider.start()
    except (ValueError, RuntimeError) as exc:
        _print_error(str(exc))
        return 2

    stop = threading.Event()
    previous = _install_stop_handlers(stop)
    try:
        with _traffic_logged_to_stderr():
            print(provider.base_url, flush=True)
            for model, script in provider.scripts().items():
                LOG.info("scripted %s: %s", model, script.describe())
            # A timed wait keeps the main thread responsive to signal handlers.
            while not stop.wait(0.2):
                pass
            provider.stop()
    finally:
        provider.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


@contextlib.contextmanager
def _traffic_logged_to_stderr() -> Iterator[None]:
    # Our own logger, not the root one: main() may run inside another program.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(levelname)s: %(message)s"))
    previous_level = LOG.level
    LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    try:
        yield
    finally:
        LOG.removeHandler(handler)
        LOG.setLevel(previous_level)

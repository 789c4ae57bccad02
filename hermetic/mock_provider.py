"""Scriptable mock of an OpenAI-compatible model provider, for acceptance tests.

The hermetic behave suite runs the real Hermes Agent (``hermes cron tick``) against this server
so that provider failures -- a removed model (404 ``model_not_found``), a rate limit, a 500, a
hang, a reset connection -- happen for real over HTTP, and a plugin's ``api_request_error`` hook
fires exactly as it would in production.

* Each model follows a script (:class:`Behaviour`): answers such as ``success``,
  ``model_not_found`` or ``hang``, possibly in a sequence ("fail twice, then answer"). The
  format is described in :mod:`hermetic.mock_script`; the answers in
  :mod:`hermetic.mock_answers`.
* Every request is recorded as a :class:`JournalEntry` (:mod:`hermetic.mock_journal`), so steps
  can assert what Hermes actually sent and print the traffic when a scenario fails.
* Anything nobody scripted -- an unknown route or an unknown model -- is answered *loudly*
  (HTTP 418 with header ``X-Hermetic-Mock: unmatched``) so that a mis-configured test can never
  pass for a genuine provider answer.

This module holds the server thread, the :class:`MockProvider` API and the command line; the
routes are in :mod:`hermetic.mock_routes`.

Use it in-process::

    with MockProvider() as mock:
        mock.serve_model("gpt-4o-mini")
        mock.remove_model("gpt-3.5-turbo")
        mock.fail_model("flaky", "server_error", times=2)
        mock.script("slow", {"answer": "hang", "seconds": 5})
        ...  # point Hermes at mock.api_base

or from a shell with ``python tools/mock_provider.py --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import ipaddress
import logging
import signal
import sys
import textwrap
import threading
from collections.abc import Iterator, Mapping, Sequence
from os import PathLike
from types import FrameType
from typing import Any, NoReturn

from aiohttp import web

from hermetic.mock_answers import (
    ANSWERS,
    SUCCESS,
    chat_completion,
    chat_completion_chunks,
    estimate_prompt_tokens,
    invalid_request_error,
    model_gone_error,
    model_list,
    model_not_found_error,
    model_object,
)
from hermetic.mock_journal import CHAT, PROBE, UNMATCHED, JournalEntry, redact_authorization
from hermetic.mock_registry import MockState
from hermetic.mock_routes import (
    CONTROL_PREFIX,
    CONTROL_ROUTES,
    KNOWN_ROUTES,
    MARKER_HEADER,
    UNMATCHED_STATUS,
    Routes,
)
from hermetic.mock_script import (
    Answer,
    Behaviour,
    Scenario,
    ScriptError,
    Step,
    failing_behaviour,
    load_scenario,
    model_field,
    parse_behaviour,
    parse_scenario,
)

__all__ = [
    "BEHAVIOUR_KINDS",
    "CHAT",
    "CONTROL_PREFIX",
    "GONE",
    "HEALTHY",
    "KNOWN_ROUTES",
    "MARKER_HEADER",
    "MODEL_NOT_FOUND",
    "PROBE",
    "UNMATCHED",
    "UNMATCHED_STATUS",
    "Answer",
    "Behaviour",
    "JournalEntry",
    "MockProvider",
    "Scenario",
    "ScriptError",
    "Step",
    "build_parser",
    "chat_completion",
    "chat_completion_chunks",
    "estimate_prompt_tokens",
    "invalid_request_error",
    "load_scenario",
    "main",
    "model_gone_error",
    "model_list",
    "model_not_found_error",
    "model_object",
    "redact_authorization",
]

# A fixed name, not __name__: the routes log here too, and the CLI listens on it.
LOG = logging.getLogger("hermetic.mock_provider")

PROG = "mock_provider"

# The answers the first version of this mock called "kinds"; kept for callers that name them.
HEALTHY = SUCCESS
MODEL_NOT_FOUND = "model_not_found"
GONE = "model_gone"
BEHAVIOUR_KINDS = frozenset(ANSWERS)

# Short, because a request may be mid-hang: stop() must not wait for aiohttp's default 60 s
# graceful shutdown (the hang itself ends as soon as shutdown starts).
_SHUTDOWN_TIMEOUT = 1.0
_START_TIMEOUT = 10.0
_JOIN_TIMEOUT = 5.0

ScenarioSource = str | PathLike[str] | Scenario | Mapping[str, Any]


# --------------------------------------------------------------------------
# Server thread
# --------------------------------------------------------------------------


def _require_loopback(host: str) -> str:
    """Return a bindable loopback address for ``host`` or raise ValueError."""
    if host == "localhost":
        # One concrete address, so port 0 cannot bind different ports per family.
        return "127.0.0.1"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(
            f"refusing to listen on {host!r}: the mock provider binds loopback only "
            "(use 127.0.0.1, ::1 or localhost)"
        )
    return host


def _bind_failure(host: str, port: int, exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        reason = "address in use"
    elif isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror
    else:
        reason = str(exc) or type(exc).__name__
    return f"could not bind {host}:{port}: {reason}"


class _ServerThread:
    """Serves one aiohttp app on a private event loop in a daemon thread.

    The caller's thread is usually blocked in ``subprocess.run`` while Hermes
    talks to the mock, so the server cannot share the caller's loop.
    """

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self.bound_port = 0
        self._thread = threading.Thread(
            target=self._run, name=f"hermetic-mock-provider:{port}", daemon=True
        )

    def start(self) -> int:
        """Start serving; return the bound port or raise RuntimeError."""
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            raise RuntimeError(f"mock provider did not start within {_START_TIMEOUT:.0f} s")
        if self._error is not None:
            self._thread.join(_JOIN_TIMEOUT)
            raise RuntimeError(_bind_failure(self._host, self._port, self._error)) from self._error
        return self.bound_port

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        if self._runner is not None:
            future = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
            try:
                future.result(_JOIN_TIMEOUT)
            except Exception:
                LOG.warning("mock provider did not shut down cleanly", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_JOIN_TIMEOUT)
        if self._thread.is_alive():
            LOG.warning("mock provider thread still alive after %.0f s", _JOIN_TIMEOUT)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._bind())
        except Exception as exc:
            self._error = exc
            self._ready.set()
            self._loop.run_until_complete(self._cleanup_quietly())
            self._loop.close()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            _cancel_leftover_tasks(self._loop)
            self._loop.close()

    async def _bind(self) -> None:
        self._runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=_SHUTDOWN_TIMEOUT)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        self.bound_port = self._runner.addresses[0][1]

    async def _cleanup_quietly(self) -> None:
        if self._runner is None:
            return
        try:
            await self._runner.cleanup()
        except Exception:
            LOG.debug("cleanup after failed start raised", exc_info=True)


def _cancel_leftover_tasks(loop: asyncio.AbstractEventLoop) -> None:
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


class MockProvider:
    """An OpenAI-compatible provider whose answers are scripted per model.

    Runs on its own thread and event loop; every method is safe to call from any thread while
    it serves. ``scenario`` (a scenario file path, a loaded :class:`Scenario`, or a mapping
    shaped like the file) scripts models before the server starts.
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, scenario: ScenarioSource | None = None
    ) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be between 0 and 65535, got {port}")
        self._host = _require_loopback(host)
        self._requested_port = port
        self._state = MockState()
        self._server: _ServerThread | None = None
        self._port: int | None = None
        self._lifecycle = threading.Lock()
        if scenario is not None:
            for model, behaviour in _as_scenario(scenario).models.items():
                self._state.scripts.set(model, behaviour)

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> MockProvider:
        """Bind and serve in the background; returns once the port is bound.

        The scripts in place now are the ones ``reset(scripts=True)`` restores.
        """
        with self._lifecycle:
            if self._server is not None:
                raise RuntimeError("mock provider is already running")
            self._state.scripts.keep_as_baseline()
            app = Routes(self._state).application()
            server = _ServerThread(app, self._host, self._requested_port)
            self._port = server.start()
            self._server = server
        return self

    def stop(self) -> None:
        """Stop serving (a request mid-hang is cut off). Safe to call more than once."""
        with self._lifecycle:
            server, self._server = self._server, None
        if server is not None:
            server.stop()

    def __enter__(self) -> MockProvider:
        return self.start() if self._server is None else self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses ----------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (still known after stop(), for reports)."""
        if self._port is None:
            raise RuntimeError("mock provider has not been started")
        return self._port

    @property
    def base_url(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    # -- scripting -----------------------------------------------------------

    def script(self, model: str, spec: Any) -> Behaviour:
        """Script ``model`` with a spec (answer name, answer mapping or list of steps).

        The same format as a scenario file's ``models.<model>`` and the control API's PUT body;
        raises :class:`ScriptError` naming the field. The script starts at its first step.
        """
        _check_model_name(model)
        behaviour = parse_behaviour(spec, model_field(model))
        self._state.scripts.set(model, behaviour)
        return behaviour

    def set_behaviour(self, model: str, behaviour: Behaviour | Any) -> None:
        """Script ``model`` with a :class:`Behaviour` (or any spec :meth:`script` takes)."""
        self.script(model, behaviour)

    def serve_model(self, model: str, content: str | None = None) -> None:
        """Answer chats for ``model`` with 200 and list it in /v1/models."""
        self.set_behaviour(model, Behaviour.healthy(content))

    def remove_model(self, model: str) -> None:
        """Answer ``model`` with OpenAI's 404 ``model_not_found``."""
        self.set_behaviour(model, Behaviour.model_not_found())

    def retire_model(self, model: str) -> None:
        """Answer ``model`` with 410 ``model_gone``."""
        self.set_behaviour(model, Behaviour.gone())

    def fail_model(
        self, model: str, answer: str | Mapping[str, Any], times: int | None = None
    ) -> Behaviour:
        """Answer ``model`` with ``answer`` ``times`` times, then succeed (None: fail forever).

        ``answer`` is an answer name, or a mapping such as ``{"answer": "hang", "seconds": 5}``.
        """
        _check_model_name(model)
        try:
            behaviour = failing_behaviour(answer, times)
        except ScriptError as exc:
            raise exc.within(model_field(model)) from None
        self._state.scripts.set(model, behaviour)
        return behaviour

    def forget_model(self, model: str) -> bool:
        """Unscript ``model`` (its requests become unmatched); False if it was not scripted."""
        return self._state.scripts.remove(model)

    def behaviour(self, model: str) -> Behaviour | None:
        return self._state.scripts.get(model)

    def scripts(self) -> dict[str, Behaviour]:
        """Every scripted model and its behaviour, sorted by model."""
        return self._state.scripts.all()

    def error_message(self, model: str) -> str:
        """The ``error.message`` the model's first failing step sends: what an alert carries."""
        behaviour = self._state.scripts.get(model)
        message = behaviour.error_message(model) if behaviour is not None else None
        if message is None:
            raise ValueError(f"model {model!r} is not scripted to fail with an error message")
        return message

    # -- journal -------------------------------------------------------------

    def journal(self, model: str | None = None, kind: str | None = None) -> list[JournalEntry]:
        return self._state.journal.entries(model=model, kind=kind)

    def chat_requests(self, model: str | None = None) -> list[JournalEntry]:
        return self._state.journal.entries(model=model, kind=CHAT)

    def unmatched(self) -> list[JournalEntry]:
        return self._state.journal.entries(kind=UNMATCHED)

    def counts(self) -> dict[str, Any]:
        """Journal totals: ``total``, ``by_model``, ``by_kind``, ``unmatched`` (as the API)."""
        return self._state.journal.counts()

    def reset(self, scripts: bool = False) -> None:
        """Clear the journal and start every script over; ``scripts`` also restores the scripts
        in place when the server started (scenario file, CLI flags), dropping later ones."""
        self._state.reset(restore_scripts=scripts)

    def reset_journal(self) -> None:
        """Clear the journal and start every script over (``reset()``)."""
        self._state.reset()

    def journal_text(self, limit: int = 50) -> str:
        """The last ``limit`` requests, one line each, for failure reports."""
        return self._state.journal.text(limit)


def _check_model_name(model: Any) -> None:
    if not isinstance(model, str) or not model:
        raise ValueError("model name must be a non-empty string")


def _as_scenario(scenario: ScenarioSource) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return parse_scenario(scenario)
    return load_scenario(scenario)


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


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

_SCENARIO_EXAMPLE = """\
scenario file (--scenario FILE, .yaml/.yml or .json):
  models:
    gone-model: model_not_found           # an answer name: every request
    healthy-model: success
    flaky:                                # a list of steps, in order:
      - {answer: server_error, times: 2}  #   requests 1-2 get a 500,
      - {answer: success}                 #   the last step answers forever
    slow: {answer: hang, seconds: 5}      # a mapping: one answer + settings
    limited: {answer: rate_limit, headers: {Retry-After: "2"}}

  answer keys: answer (required); status (100-599; a 1xx is interim in HTTP, so
  clients keep waiting, and 204/304 carry no body); body (JSON object or array,
  or a string sent as text/plain); headers (name: "string"); content (reply
  text, success/hang only); seconds (hang only, required); times (a list step;
  every step but the last needs it). Presets are defaults; your keys win. A
  model's steps count its chat requests since it was scripted or last reset."""

_EXAMPLES = """\
examples:
  python tools/mock_provider.py --serve gpt-4o-mini --remove gpt-3.5-turbo
      # prints e.g. http://127.0.0.1:43123 ; point Hermes at
      # http://127.0.0.1:43123/v1 and a chat naming gpt-3.5-turbo gets a 404.
  python tools/mock_provider.py --port 8099 --scenario scenario.yaml
  curl -X PUT http://127.0.0.1:8099/__hermetic/models/flaky \\
       -d '[{"answer": "overloaded", "times": 3}, "success"]'
  curl http://127.0.0.1:8099/__hermetic/journal/counts

exit status: 0 after Ctrl-C or SIGTERM; 2 for a bad option or scenario file
(one line on stderr naming the file and field)."""


def _answers_help() -> str:
    rows = {name: info.summary for name, info in ANSWERS.items()}
    return "answers (what a chat request for the model gets):\n" + _table(rows)


def _table(rows: Mapping[str, str]) -> str:
    """Two columns, the second wrapped to fit an 80-column terminal."""
    width = max(len(key) for key in rows)
    return "\n".join(
        textwrap.fill(
            text,
            width=_HELP_WIDTH,
            initial_indent=f"  {key:<{width}}  ",
            subsequent_indent=" " * (width + 4),
        )
        for key, text in rows.items()
    )


def build_parser() -> argparse.ArgumentParser:
    epilog = "\n\n".join(
        [
            _answers_help(),
            _SCENARIO_EXAMPLE,
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
        help="script models from a YAML or JSON file (format below)",
    )
    for option, help_text in _ROLE_HELP:
        parser.add_argument(
            option,
            metavar="MODEL",
            action="append",
            default=[],
            type=_model_name,
            help=f"{help_text} (repeatable)",
        )
    return parser


_ROLE_HELP = (
    ("--serve", "answer MODEL with success: 200, listed in /v1/models"),
    ("--remove", "answer MODEL with model_not_found (404), like a removed model"),
    ("--retire", "answer MODEL with model_gone (410), like a retired model"),
)


def _cli_scripts(args: argparse.Namespace) -> dict[str, Behaviour]:
    """The scenario file's scripts plus the --serve/--remove/--retire ones.

    Raises ValueError (ScriptError for the file) when a model is given two scripts.
    """
    scenario = load_scenario(args.scenario) if args.scenario else Scenario({})
    roles = (
        ("--serve", args.serve, Behaviour.healthy()),
        ("--remove", args.remove, Behaviour.model_not_found()),
        ("--retire", args.retire, Behaviour.gone()),
    )
    chosen: dict[str, tuple[str, Behaviour]] = {}
    for option, models, behaviour in roles:
        for model in models:
            if model in scenario.models:
                raise ValueError(
                    f"model {model!r} is scripted both in {scenario.source} and by {option}"
                )
            earlier = chosen.get(model)
            if earlier is not None and earlier[0] != option:
                raise ValueError(f"model {model!r} given to both {earlier[0]} and {option}")
            chosen[model] = (option, behaviour)
    scripts = dict(scenario.models)
    scripts.update({model: behaviour for model, (_, behaviour) in chosen.items()})
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
        for model, behaviour in _cli_scripts(args).items():
            provider.set_behaviour(model, behaviour)
        provider.start()
    except (ValueError, RuntimeError) as exc:
        _print_error(str(exc))
        return 2

    stop = threading.Event()
    previous = _install_stop_handlers(stop)
    try:
        with _traffic_logged_to_stderr():
            print(provider.base_url, flush=True)
            for model, behaviour in provider.scripts().items():
                LOG.info("scripted %s: %s", model, behaviour.describe())
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


if __name__ == "__main__":
    sys.exit(main())

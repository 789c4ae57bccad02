"""The mock provider as a test holds it (:class:`MockProvider`): the loopback server of an
OpenAI-compatible model provider, started, scripted per model and asked what it received. What
it answers is built in :mod:`hermetic.mock.provider_answers`; its HTTP routes are in
:mod:`hermetic.mock.routes`.

The hermetic behave suite runs the real Hermes Agent (``hermes cron tick``) against this server
so that provider failures -- a removed model (404 ``model_not_found``), a rate limit, a 500, a
hang, a reset connection -- happen for real over HTTP, and a plugin's ``api_request_error`` hook
fires exactly as it would in production.

* Each model follows a :class:`~hermetic.mock.script.Script` of answers such as ``success``,
  ``model_not_found`` or ``hang``, possibly in stages ("fail twice, then answer"). The format
  is described in :mod:`hermetic.mock.script`; the answers in :mod:`hermetic.mock.provider_answers`.
* Every request is journaled as a :class:`~hermetic.mock.state.ProviderEntry`, so steps can
  assert what Hermes actually sent and print the traffic when a scenario fails.
* A provider's own words come from the corpus the mock is given (``corpus=``: a run's, with
  the author's recorded answers; the bundled corpus by default): every script it takes is
  checked against that corpus and served from it.
* Anything nobody scripted -- an unknown route or an unknown model -- is answered *loudly*
  (HTTP 418 with header ``X-Hermetic-Mock: unmatched``) so that a mis-configured test can never
  pass for a genuine provider answer. The routes are in :mod:`hermetic.mock.routes`.

Use it in-process::

    with MockProvider() as mock:
        mock.serve_model("gpt-4o-mini")
        mock.remove_model("gpt-3.5-turbo")
        mock.fail_model("flaky", "server_error", times=2)
        mock.script("slow", {"answer": "hang", "seconds": 5})
        ...  # point Hermes at mock.api_base

or from a shell with ``python -m hermetic.mock --help``.
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import Any

from aiohttp import web

from hermetic.corpus import Corpus, bundled_corpus
from hermetic.mock.provider_answers import SUCCESS
from hermetic.mock.routes import Routes, error_message_over
from hermetic.mock.script import (
    Answer,
    Script,
    ScriptError,
    ScriptFile,
    failing_script,
    load_script_file,
    model_field,
    parse_script,
    parse_script_file,
)
from hermetic.mock.server import LoopbackServer
from hermetic.mock.state import CHAT, UNMATCHED, ProviderEntry, ProviderState

__all__ = ["MockProvider", "ScriptFileSource"]

# A script file's path, the loaded file, or a mapping shaped like it.
ScriptFileSource = str | PathLike[str] | ScriptFile | Mapping[str, Any]


class MockProvider(LoopbackServer):
    """An OpenAI-compatible provider whose answers are scripted per model.

    Runs on its own thread and event loop; every method is safe to call from any thread while
    it serves. ``script_file`` scripts models before the server starts. ``corpus`` is what a
    provider's words are checked against and served from (default: the bundled corpus).
    """

    label = "mock provider"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        script_file: ScriptFileSource | None = None,
        corpus: Corpus | None = None,
    ) -> None:
        super().__init__(host, port)
        self.corpus = bundled_corpus() if corpus is None else corpus
        self._state = ProviderState()
        if script_file is not None:
            for model, script in _as_script_file(script_file, self.corpus).models.items():
                self._state.scripts.set(
                    model, parse_script(script, model_field(model), self.corpus)
                )

    def _application(self) -> web.Application:
        # Called by start(): the scripts in place now are the ones reset(scripts=True) restores.
        self._state.scripts.keep_as_baseline()
        return Routes(self._state, self.corpus).application()

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    # -- scripting -----------------------------------------------------------

    def script(self, model: str, spec: Any) -> Script:
        """Script ``model`` with a spec (answer name, answer mapping or list of stages).

        The same format as a script file's ``models.<model>`` and the control API's PUT body
        (a :class:`Script` or :class:`Answer` is checked again against this mock's corpus);
        raises :class:`ScriptError` naming the field. The script starts at its first stage.
        """
        _check_model_name(model)
        script = parse_script(spec, model_field(model), self.corpus)
        self._state.scripts.set(model, script)
        return script

    def serve_model(self, model: str, content: str | None = None) -> None:
        """Answer chats for ``model`` with 200 and list it in /v1/models."""
        self.script(model, Answer(SUCCESS, content=content))

    def remove_model(self, model: str) -> None:
        """Answer ``model`` with OpenAI's 404 ``model_not_found``."""
        self.script(model, "model_not_found")

    def retire_model(self, model: str) -> None:
        """Answer ``model`` with 410 ``model_gone``."""
        self.script(model, "model_gone")

    def fail_model(
        self, model: str, answer: str | Mapping[str, Any], times: int | None = None
    ) -> Script:
        """Answer ``model`` with ``answer`` ``times`` times, then succeed (None: fail forever).

        ``answer`` is an answer name, or a mapping such as ``{"answer": "hang", "seconds": 5}``.
        """
        _check_model_name(model)
        try:
            script = failing_script(answer, times, self.corpus)
        except ScriptError as exc:
            raise exc.within(model_field(model)) from None
        self._state.scripts.set(model, script)
        return script

    def forget_model(self, model: str) -> bool:
        """Unscript ``model`` (its requests become unmatched); False if it was not scripted."""
        return self._state.scripts.remove(model)

    def script_of(self, model: str) -> Script | None:
        """The script ``model`` follows, or None if nobody scripted it."""
        return self._state.scripts.get(model)

    def scripts(self) -> dict[str, Script]:
        """Every scripted model and its script, sorted by model."""
        return self._state.scripts.all()

    def error_message(self, model: str) -> str:
        """The error message the model's first failing stage sends: what an alert carries.

        In the words of the protocol the model's last request came in by (chat completions
        when it has none yet): Anthropic's ``"model: X"`` over Messages, Bedrock's message over
        Converse."""
        script = self._state.scripts.get(model)
        message = None
        if script is not None:
            requests = self.chat_requests(model)
            path = requests[-1].path if requests else ""
            message = error_message_over(path, script, model)
        if message is None:
            raise ValueError(f"model {model!r} is not scripted to fail with an error message")
        return message

    # -- journal -------------------------------------------------------------

    def journal(self, model: str | None = None, kind: str | None = None) -> list[ProviderEntry]:
        """Journaled requests for ``model`` and of ``kind`` (None: any), oldest first."""
        return self._state.journal.select(model=model, kind=kind)

    def chat_requests(self, model: str | None = None) -> list[ProviderEntry]:
        return self._state.journal.select(model=model, kind=CHAT)

    def unmatched(self) -> list[ProviderEntry]:
        return self._state.journal.select(kind=UNMATCHED)

    def counts(self) -> dict[str, Any]:
        """Journal totals: ``total``, ``by_model``, ``by_kind``, ``unmatched`` (as the API)."""
        return self._state.journal.counts()

    def reset(self, scripts: bool = False) -> None:
        """Clear the journal and start every script over; ``scripts`` also restores the scripts
        in place when the server started (script file, CLI flags), dropping later ones."""
        self._state.reset(restore_scripts=scripts)

    def journal_text(self, limit: int = 50) -> str:
        """The last ``limit`` requests, one line each, for failure reports."""
        return self._state.journal.text(limit)


def _check_model_name(model: Any) -> None:
    if not isinstance(model, str) or not model:
        raise ValueError("model name must be a non-empty string")


def _as_script_file(source: ScriptFileSource, corpus: Corpus) -> ScriptFile:
    if isinstance(source, ScriptFile):
        return source
    if isinstance(source, Mapping):
        return parse_script_file(source, corpus=corpus)
    return load_script_file(source, corpus=corpus)

"""The model providers a scenario's Hermes talks to: loopback mocks, named and scripted.

The *primary* provider serves Hermes' default model (``model.base_url``). Others are started by
name when a scenario needs them: a fallback listed in ``fallback_providers``, a second vendor a
job is pinned to, or the provider a developer's own Hermes would use (which must hear nothing).
The phrases the features use ("rate limited (429)") become mock scripts and the Hermes settings
their scenario needs in :mod:`hermetic.mock.phrases`.
"""

from __future__ import annotations

from collections.abc import Callable

from hermetic.corpus import MODEL_GONE, CorpusError
from hermetic.diagnostics.artefact_names import slug
from hermetic.diagnostics.evidence import Evidence
from hermetic.errors import HarnessError
from hermetic.hermes.run.config import HermesConfig
from hermetic.mock import ClosedPort, MockProvider, ScriptError
from hermetic.mock.phrases import answer_phrase
from hermetic.mock.provider_answers import answer_for_situation

#: Most requests a journal shows in the artefacts.
JOURNAL_LIMIT = 1000


class Providers:
    """The primary mock provider and any named ones, stopped when the scenario ends. All answer
    from the primary's corpus: the scenario's (the bundled one with the profile's recorded
    answers)."""

    def __init__(
        self,
        primary: MockProvider,
        config: HermesConfig,
        add_cleanup: Callable[[Callable[[], None]], None],
    ) -> None:
        self.primary = primary
        self.corpus = primary.corpus
        self.config = config
        self.add_cleanup = add_cleanup
        self.named: dict[str, MockProvider] = {}
        # The model each provider was made to remove in its own words (provider -> model).
        self.removed_by: dict[str, str] = {}

    def answer(self, model: str, phrase: str) -> None:
        """Make the primary provider answer ``model`` the way the feature's phrase says."""
        answer = answer_phrase(phrase)
        if answer.tuning:
            self.config.tune(**answer.tuning)
        if answer.refuses_connections:
            self.refuse_connections()
        else:
            self.primary.script(model, answer.spec)

    def remove_in_words(
        self,
        model: str,
        provider: str,
        words: str | None = None,
        *,
        protocol: str | None = None,
    ) -> None:
        """Make the primary provider answer ``model`` the way ``provider`` says a model is gone
        (its published answer from the corpus; the one with ``words`` when given). With
        ``protocol`` (Hermes' ``api_mode``), the corpus must have that answer over it: the mock
        answers each request in the words of the protocol it came by."""
        spec = {"answer": "model_not_found", "provider": provider}
        if words is not None:
            spec["words"] = words
        if protocol is not None:
            try:
                self.corpus.find(provider, MODEL_GONE, protocol, words)
            except CorpusError as exc:
                raise HarnessError(str(exc)) from None
        try:
            self.primary.script(model, spec)
        except ScriptError as exc:
            raise HarnessError(f"the provider {provider!r}: {exc.detail}") from None
        self.removed_by[self.spelled(provider)] = model

    def answer_in_words(
        self, model: str, provider: str, words: str, *, protocol: str | None = None
    ) -> None:
        """Make the primary provider answer ``model`` with the one of ``provider``'s published
        answers (the corpus) that says ``words``, whatever it is about (a removed model, a rate
        limit, an overload, an error inside a stream); over the protocol Hermes speaks. With
        ``protocol`` (Hermes' ``api_mode``), the corpus must have that answer over it."""
        spelled = self.spelled(provider)
        answers = [
            a
            for a in self.corpus.of(spelled)
            if words in (a.words, a.name) and protocol in (None, a.protocol)
        ]
        if not answers:
            has = "; ".join(
                f"{a.words!r} over {a.protocol}"
                for a in self.corpus.of(spelled)
                if protocol in (None, a.protocol)
            )
            over = f" over {protocol}" if protocol else ""
            raise HarnessError(
                f"{spelled} has no answer {words!r}{over}; it has: {has or 'none there'}"
            )
        spec = {
            "answer": answer_for_situation(answers[0].situation),
            "provider": spelled,
            "words": answers[0].words,
        }
        try:
            self.primary.script(model, spec)
        except ScriptError as exc:
            raise HarnessError(f"the provider {provider!r}: {exc.detail}") from None

    def spelled(self, provider: str) -> str:
        """The provider's name as the corpus spells it (HarnessError for one it lacks)."""
        try:
            return self.corpus.provider(provider)
        except CorpusError as exc:
            raise HarnessError(str(exc)) from None

    def fail_then_answer(self, model: str, phrase: str, times: int) -> None:
        """Fail ``model`` ``times`` times the way the phrase says, then answer normally."""
        answer = answer_phrase(phrase)
        if answer.refuses_connections or not isinstance(answer.spec, str):
            raise HarnessError(f"{phrase!r} cannot be followed by a recovery")
        self.primary.fail_model(model, answer.spec, times=times)

    def reject_login_then_answer(self, model: str, phrase: str) -> None:
        """Reject the first request for ``model`` as unauthorised (401), as a provider does
        with an expired login, then answer it the way the phrase says."""
        answer = answer_phrase(phrase)
        if answer.refuses_connections:
            raise HarnessError(f"{phrase!r} cannot follow a rejected login: the port is closed")
        if answer.tuning:
            self.config.tune(**answer.tuning)
        then = {"answer": answer.spec} if isinstance(answer.spec, str) else dict(answer.spec)
        self.primary.script(model, [{"answer": "unauthorized", "times": 1}, then])

    def refuse_connections(self) -> None:
        """Point Hermes at a loopback port that refuses every connection."""
        port = ClosedPort()
        self.add_cleanup(port.close)
        self.config.base_url = port.api_base

    def start(self, name: str) -> MockProvider:
        """Another mock provider (a fallback, a second vendor), stopped when the scenario ends."""
        if name not in self.named:
            provider = MockProvider(corpus=self.corpus).start()
            self.add_cleanup(provider.stop)
            self.named[name] = provider
        return self.named[name]

    def add_fallback(self, model: str) -> MockProvider:
        """A healthy fallback provider serving ``model``, listed in ``fallback_providers``."""
        provider = self.start("fallback")
        provider.serve_model(model)
        self.config.fallbacks.append((provider.api_base, model))
        return provider

    def evidence(self) -> list[Evidence]:
        items = [
            Evidence(
                "mock provider request journal",
                lambda: self.primary.journal_text(JOURNAL_LIMIT),
                "mock-journal.txt",
            )
        ]
        for name, provider in self.named.items():
            items.append(
                Evidence(
                    f"{name} provider request journal",
                    lambda provider=provider: provider.journal_text(JOURNAL_LIMIT),
                    f"{slug(name)}-provider-journal.txt",
                )
            )
        return items

"""The provider outlines' Examples, generated from the corpus.

Two outlines serve the corpus's answers, each row one real answer of one provider over the
protocol the answer belongs to:

- :data:`MODEL_GONE_OUTLINE` (``features/every_provider.feature``): every answer that says the
  job's model is gone (removed, retired, unknown), which must become one alert;
- :data:`PASSING_FAILURE_OUTLINE` (``features/every_provider_failures.feature``): every answer
  about a failure that is not about the model (a rate limit, an overload, a server error), which
  leads to the failure table's decision for its status: no alert for a rate limit (the
  ``quiet-on-transient`` promise), an alert for a 5xx on Hermes' last attempt
  (``exhausted-retries``). An error inside a 200 stream is not a row: the wire protocols'
  feature serves those.

One Examples block per provider, wire protocol (and promise). Every block is tagged
``@provider.<slug>``, so a profile's ``[providers] only`` can leave a provider out; a block over
another protocol than chat completions is tagged ``@protocol.<key>`` too, so the run knows
before any scenario starts which Hermes environments to make (Messages and Converse need Hermes
installed with an extra). ``tools/corpus_examples.py --write`` rewrites the features' blocks
from here; tests/test_corpus_examples.py fails when a feature and the corpus disagree.

The answers a plugin's author recorded (``[providers] answers``) join the same outlines in a
run's copy of the features (:func:`with_recorded_rows`), in blocks tagged ``@recorded``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hermetic.corpus.model import Corpus, ProviderAnswer, provider_slug

__all__ = [
    "BEGIN",
    "END",
    "MODEL_GONE_OUTLINE",
    "OUTLINES",
    "OUTLINE_PROTOCOLS",
    "PASSING_FAILURES",
    "PASSING_FAILURE_OUTLINE",
    "PROTOCOL_TAGS",
    "PROTOCOL_TITLES",
    "RECORDED_TAG",
    "GeneratedOutline",
    "block_tags",
    "examples_text",
    "failure_decision",
    "outline_of",
    "served_as",
    "with_recorded_rows",
]

#: The protocols the outlines run, by Hermes' ``api_mode``: every one the mock serves (the
#: Responses API through an openai-codex login whose base URL is the mock: Hermes speaks it to
#: no custom provider).
OUTLINE_PROTOCOLS = (
    "chat_completions",
    "codex_responses",
    "anthropic_messages",
    "bedrock_converse",
)
#: How the features name each protocol (the step's words: ``hermetic.hermes.install.protocols``'
#: titles, which the corpus, on floor 2, cannot import; a unit test keeps them equal).
PROTOCOL_TITLES = {
    "chat_completions": "OpenAI's chat completions",
    "codex_responses": "OpenAI's Responses API",
    "anthropic_messages": "Anthropic's Messages API",
    "bedrock_converse": "Amazon Bedrock's Converse API",
}
#: The tag of a block over another protocol than chat completions (``@protocol.<key>``).
PROTOCOL_TAGS = {
    "codex_responses": "protocol.responses",
    "anthropic_messages": "protocol.anthropic-messages",
    "bedrock_converse": "protocol.bedrock-converse",
}
#: The tag, and the first word of the name, of a block of answers the plugin's author recorded
#: (``[providers] answers`` in the profile).
RECORDED_TAG = "recorded"
#: The lines between which the generated blocks sit in a feature file.
BEGIN = "        # generated from hermetic/corpus/answers.toml: tools/corpus_examples.py --write"
END = "        # end of the generated examples"

#: The situations of a failure that is not about the model: it passes, or it is a model's
#: outage only when it outlasts Hermes' retries.
PASSING_FAILURES = ("rate-limit", "overloaded", "server-error")
# A status that says the model is not there, whatever situation the answer names: the failure
# table alerts on it, so it cannot be a row of a failure that passes.
_MODEL_STATUSES = (404, 410)

Row = tuple[str, ...]


def failure_decision(answer: ProviderAnswer) -> tuple[str, str, str] | None:
    """The failure table's decision for a provider's answer about a failure that passes, as
    (promise, alert recorded, error code): a 5xx is an alert on Hermes' last attempt
    (``exhausted-retries``), any other 4xx but 404 and 410 no alert (``quiet-on-transient``).
    None for an answer of another situation, or one whose status no row of the failure table
    decides this way (an error inside a 200 stream, a rate limit answered 404)."""
    if answer.situation not in PASSING_FAILURES:
        return None
    if 500 <= answer.status <= 599:
        return ("exhausted-retries", "yes", str(answer.status))
    if 400 <= answer.status <= 499 and answer.status not in _MODEL_STATUSES:
        return ("quiet-on-transient", "no", "-")
    return None


@dataclass(frozen=True)
class GeneratedOutline:
    """A scenario outline whose Examples are generated from the corpus: the feature file it is
    in, its table's headings, and which answers are its rows (with the promise of each row's
    block, when its rows keep more than one)."""

    feature: str
    headings: tuple[str, ...]
    #: The answer's row (its cells after provider and protocol) and the promise of its block;
    #: None for an answer that is no row of this outline.
    row: Callable[[ProviderAnswer], tuple[Row, str | None] | None]
    #: How a block's heading names a promise, after the provider.
    promise_heading: Callable[[str], str] = lambda _promise: ""

    def blocks(self, corpus: Corpus) -> dict[tuple[str, str, str | None], list[Row]]:
        """(provider, protocol, promise) -> its rows, whole, in corpus order."""
        blocks: dict[tuple[str, str, str | None], list[Row]] = {}
        for answer in corpus.answers:
            if answer.protocol not in OUTLINE_PROTOCOLS:
                continue
            made = self.row(answer)
            if made is None:
                continue
            cells, promise = made
            row = (answer.provider, PROTOCOL_TITLES[answer.protocol], *cells)
            blocks.setdefault((answer.provider, answer.protocol, promise), []).append(row)
        return blocks

    def serves(self, answer: ProviderAnswer) -> bool:
        """Whether ``answer`` is a row of this outline."""
        return answer.protocol in OUTLINE_PROTOCOLS and self.row(answer) is not None


def _model_gone_row(answer: ProviderAnswer) -> tuple[Row, str | None] | None:
    if not answer.model_gone:
        return None
    return (answer.words, str(answer.status)), None


def _passing_failure_row(answer: ProviderAnswer) -> tuple[Row, str | None] | None:
    decision = failure_decision(answer)
    if decision is None:
        return None
    promise, recorded, code = decision
    return (answer.words, recorded, code), promise


_PROMISE_HEADINGS = {
    "quiet-on-transient": "a failure that passes",
    "exhausted-retries": "a failure on Hermes' last attempt",
}

#: Every provider's removed model: one alert each (features/every_provider.feature).
MODEL_GONE_OUTLINE = GeneratedOutline(
    feature="every_provider.feature",
    headings=("provider", "protocol", "answer", "error code"),
    row=_model_gone_row,
)
#: Every provider's words for a failure that is not about the model: the failure table's
#: decision for each (features/every_provider_failures.feature).
PASSING_FAILURE_OUTLINE = GeneratedOutline(
    feature="every_provider_failures.feature",
    headings=("provider", "protocol", "answer", "alert recorded", "error code"),
    row=_passing_failure_row,
    promise_heading=lambda promise: f", {_PROMISE_HEADINGS[promise]}",
)
OUTLINES = (MODEL_GONE_OUTLINE, PASSING_FAILURE_OUTLINE)


def outline_of(answer: ProviderAnswer) -> GeneratedOutline | None:
    """The outline ``answer`` is a row of; None when it is a row of none."""
    return next((outline for outline in OUTLINES if outline.serves(answer)), None)


def served_as(answer: ProviderAnswer) -> str:
    """Where a run serves ``answer``, in one sentence: the outline's feature and the promise of
    its row, or why no outline serves it (so it joins no promise)."""
    if MODEL_GONE_OUTLINE.serves(answer):
        return (
            f"a row of features/{MODEL_GONE_OUTLINE.feature} (promise removed-model: one alert "
            f"with error code {answer.status})"
        )
    decision = failure_decision(answer)
    if decision is not None and answer.protocol in OUTLINE_PROTOCOLS:
        promise, recorded, code = decision
        alert = f"one alert with error code {code}" if recorded == "yes" else "no alert"
        return f"a row of features/{PASSING_FAILURE_OUTLINE.feature} (promise {promise}: {alert})"
    if answer.status < 400:
        why = f"{answer.status} is not an error, and the outlines serve errors"
    else:
        why = (
            f"the failure table decides a {answer.situation} answer by its status, and "
            f"{answer.status} is one it alerts on whatever the situation (a model not there)"
        )
    return f"joins no promise: {why}"


def block_tags(provider: str, protocol: str, promise: str | None = None) -> list[str]:
    """The tags of the block of ``provider``'s answers over ``protocol`` (without the @)."""
    tags = [f"provider.{provider_slug(provider)}"]
    if protocol in PROTOCOL_TAGS:
        tags.append(PROTOCOL_TAGS[protocol])
    if promise is not None:
        tags.append(f"promise.{promise}")
    return tags


def examples_text(corpus: Corpus, outline: GeneratedOutline = MODEL_GONE_OUTLINE) -> str:
    """The Examples blocks, between :data:`BEGIN` and :data:`END`, as the feature holds them."""
    return "\n".join([BEGIN, *_blocks(corpus, outline, recorded=False), "", END])


def _blocks(corpus: Corpus, outline: GeneratedOutline, *, recorded: bool) -> list[str]:
    lines: list[str] = []
    for (provider, protocol, promise), rows in outline.blocks(corpus).items():
        widths = [
            max(len(cell) for cell in column)
            for column in zip(outline.headings, *rows, strict=True)
        ]
        tagged = [RECORDED_TAG] if recorded else []
        tags = " ".join(f"@{tag}" for tag in [*block_tags(provider, protocol, promise), *tagged])
        heading = (
            provider
            if protocol == "chat_completions"
            else (f"{provider} over {PROTOCOL_TITLES[protocol]}")
        )
        if promise is not None:
            heading += outline.promise_heading(promise)
        heading = f"{RECORDED_TAG}: {heading}" if recorded else heading
        lines += ["", f"        {tags}", f"        Examples: {heading}"]
        for cells in (outline.headings, *rows):
            padded = " | ".join(
                cell.ljust(width) for cell, width in zip(cells, widths, strict=True)
            )
            lines.append(f"          | {padded} |")
    return lines


def with_recorded_rows(
    feature: str, recorded: Corpus, outline: GeneratedOutline = MODEL_GONE_OUTLINE
) -> str:
    """The outline's feature text with a block per provider and protocol (and promise) of the
    ``recorded`` answers that are its rows, after the bundled blocks (before :data:`END`):
    each block tagged ``@recorded`` and named "recorded: <provider>", so every report names its
    rows so. The text as it is when none is a row of it."""
    blocks = _blocks(recorded, outline, recorded=True)
    if not blocks:
        return feature
    if END not in feature:
        raise ValueError("the feature has no generated examples to add the recorded rows to")
    head, _, tail = feature.partition(END)
    return head.rstrip(" ") + "\n".join(blocks[1:]) + "\n\n" + END + tail

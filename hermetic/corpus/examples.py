"""The provider outline's Examples, generated from the corpus (``features/every_provider.feature``).

One Examples block per provider and wire protocol, each row one of the provider's published
answers for a model it no longer serves, over the protocol the answer belongs to. Every block is
tagged ``@provider.<slug>``, so a profile's ``[providers] only`` can leave a provider out; a
block over another protocol than chat completions is tagged ``@protocol.<key>`` too, so the
run knows before any scenario starts which Hermes environments to make (Messages and Converse
need Hermes installed with an extra). ``tools/corpus_examples.py --write`` rewrites the
feature's blocks from here; tests/test_corpus_examples.py fails when the feature and the corpus
disagree.
"""

from __future__ import annotations

from hermetic.corpus.model import Corpus, provider_slug

__all__ = [
    "BEGIN",
    "END",
    "HEADINGS",
    "OUTLINE_PROTOCOLS",
    "PROTOCOL_TAGS",
    "PROTOCOL_TITLES",
    "RECORDED_TAG",
    "block_tags",
    "examples_rows",
    "examples_text",
    "with_recorded_rows",
]

#: The protocols the outline runs, by Hermes' ``api_mode``: every one the mock serves (the
#: Responses API through an openai-codex login whose base URL is the mock: Hermes speaks it to
#: no custom provider).
OUTLINE_PROTOCOLS = (
    "chat_completions",
    "codex_responses",
    "anthropic_messages",
    "bedrock_converse",
)
#: How the feature names each protocol (the step's words: ``hermetic.hermes.install.protocols``'
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
HEADINGS = ("provider", "protocol", "answer", "error code")
#: The tag, and the first word of the name, of a block of answers the plugin's author recorded
#: (``[providers] answers`` in the profile).
RECORDED_TAG = "recorded"
#: The lines between which the generated blocks sit in the feature file.
BEGIN = "        # generated from hermetic/corpus/answers.toml: tools/corpus_examples.py --write"
END = "        # end of the generated examples"


def examples_rows(corpus: Corpus) -> dict[tuple[str, str], list[tuple[str, str, str, str]]]:
    """(provider, protocol) -> its rows (provider, protocol's title, answer words, error code),
    in corpus order."""
    rows: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
    for answer in corpus.model_gone():
        if answer.protocol in OUTLINE_PROTOCOLS:
            rows.setdefault((answer.provider, answer.protocol), []).append(
                (
                    answer.provider,
                    PROTOCOL_TITLES[answer.protocol],
                    answer.words,
                    str(answer.status),
                )
            )
    return rows


def block_tags(provider: str, protocol: str) -> list[str]:
    """The tags of the block of ``provider``'s answers over ``protocol`` (without the @)."""
    tags = [f"provider.{provider_slug(provider)}"]
    if protocol in PROTOCOL_TAGS:
        tags.append(PROTOCOL_TAGS[protocol])
    return tags


def examples_text(corpus: Corpus) -> str:
    """The Examples blocks, between :data:`BEGIN` and :data:`END`, as the feature holds them."""
    return "\n".join([BEGIN, *_blocks(corpus, recorded=False), "", END])


def _blocks(corpus: Corpus, *, recorded: bool) -> list[str]:
    lines: list[str] = []
    for (provider, protocol), rows in examples_rows(corpus).items():
        widths = [max(len(cell) for cell in column) for column in zip(HEADINGS, *rows, strict=True)]
        tagged = [RECORDED_TAG] if recorded else []
        tags = " ".join(f"@{tag}" for tag in [*block_tags(provider, protocol), *tagged])
        heading = (
            provider
            if protocol == "chat_completions"
            else (f"{provider} over {PROTOCOL_TITLES[protocol]}")
        )
        heading = f"{RECORDED_TAG}: {heading}" if recorded else heading
        lines += ["", f"        {tags}", f"        Examples: {heading}"]
        for cells in (HEADINGS, *rows):
            padded = " | ".join(
                cell.ljust(width) for cell, width in zip(cells, widths, strict=True)
            )
            lines.append(f"          | {padded} |")
    return lines


def with_recorded_rows(feature: str, recorded: Corpus) -> str:
    """The provider outline's feature text with a block per provider and protocol of the
    ``recorded`` answers about a model that is gone, after the bundled blocks (before
    :data:`END`): each block tagged ``@recorded`` and named "recorded: <provider>", so every
    report names its rows so. The text as it is when none is about a model that is gone."""
    blocks = _blocks(recorded, recorded=True)
    if not blocks:
        return feature
    if END not in feature:
        raise ValueError("the feature has no generated examples to add the recorded rows to")
    head, _, tail = feature.partition(END)
    return head.rstrip(" ") + "\n".join(blocks[1:]) + "\n\n" + END + tail

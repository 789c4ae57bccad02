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
    "block_tags",
    "examples_rows",
    "examples_text",
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
    lines = [BEGIN]
    for (provider, protocol), rows in examples_rows(corpus).items():
        widths = [max(len(cell) for cell in column) for column in zip(HEADINGS, *rows, strict=True)]
        tags = " ".join(f"@{tag}" for tag in block_tags(provider, protocol))
        heading = (
            provider
            if protocol == "chat_completions"
            else (f"{provider} over {PROTOCOL_TITLES[protocol]}")
        )
        lines += ["", f"        {tags}", f"        Examples: {heading}"]
        for cells in (HEADINGS, *rows):
            padded = " | ".join(
                cell.ljust(width) for cell, width in zip(cells, widths, strict=True)
            )
            lines.append(f"          | {padded} |")
    lines += ["", END]
    return "\n".join(lines)

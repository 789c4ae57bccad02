"""The provider outline's Examples, generated from the corpus (``features/every_provider.feature``).

One Examples block per provider, tagged ``@provider.<slug>`` so a profile's ``[providers] only``
can leave a provider out, each row one of the provider's published answers for a model it no
longer serves. ``tools/corpus_examples.py --write`` rewrites the feature's blocks from here;
tests/test_corpus_examples.py fails when the feature and the corpus disagree.
"""

from __future__ import annotations

from hermetic.corpus.model import Corpus, provider_slug

__all__ = ["BEGIN", "END", "HEADINGS", "OUTLINE_PROTOCOLS", "examples_rows", "examples_text"]

#: The protocols the outline runs (the ones the mock serves and a plain Hermes install speaks).
OUTLINE_PROTOCOLS = ("chat_completions",)
HEADINGS = ("provider", "answer", "error code")
#: The lines between which the generated blocks sit in the feature file.
BEGIN = "        # generated from hermetic/corpus/answers.toml: tools/corpus_examples.py --write"
END = "        # end of the generated examples"


def examples_rows(corpus: Corpus) -> dict[str, list[tuple[str, str, str]]]:
    """provider -> its rows (provider, answer words, error code), in corpus order."""
    rows: dict[str, list[tuple[str, str, str]]] = {}
    for answer in corpus.model_gone():
        if answer.protocol in OUTLINE_PROTOCOLS:
            rows.setdefault(answer.provider, []).append(
                (answer.provider, answer.words, str(answer.status))
            )
    return rows


def examples_text(corpus: Corpus) -> str:
    """The Examples blocks, between :data:`BEGIN` and :data:`END`, as the feature holds them."""
    lines = [BEGIN]
    for provider, rows in examples_rows(corpus).items():
        widths = [max(len(cell) for cell in column) for column in zip(HEADINGS, *rows, strict=True)]
        tag = f"@provider.{provider_slug(provider)}"
        lines += ["", f"        {tag}", f"        Examples: {provider}"]
        for cells in (HEADINGS, *rows):
            padded = " | ".join(
                cell.ljust(width) for cell, width in zip(cells, widths, strict=True)
            )
            lines.append(f"          | {padded} |")
    lines += ["", END]
    return "\n".join(lines)

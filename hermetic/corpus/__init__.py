"""The provider answer corpus: what real providers answer when a model is gone, rate limited or
overloaded, each answer with its public source (``answers.toml``, checked by
:mod:`hermetic.corpus.model`). Data only; :mod:`hermetic.mock` serves it.

    from hermetic.corpus import bundled_corpus
    corpus = bundled_corpus()  # served_corpus(profile.recorded): with an author's answers
    corpus.find("Anthropic", ["removed-model"], protocol="anthropic_messages").body_for("gone")
"""

from __future__ import annotations

from hermetic.corpus.model import (
    CORPUS_FILE,
    MODEL_GONE,
    PROTOCOLS,
    SITUATIONS,
    Corpus,
    CorpusError,
    ProviderAnswer,
    Source,
    bundled_corpus,
    load_corpus,
    provider_slug,
    served_corpus,
)

__all__ = [
    "CORPUS_FILE",
    "MODEL_GONE",
    "PROTOCOLS",
    "SITUATIONS",
    "Corpus",
    "CorpusError",
    "ProviderAnswer",
    "Source",
    "bundled_corpus",
    "load_corpus",
    "provider_slug",
    "served_corpus",
]

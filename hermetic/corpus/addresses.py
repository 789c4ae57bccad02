"""Where each provider of the corpus is asked again, and with which key's variable
(``addresses.toml`` beside the corpus): what the maintainer's drift check
(:mod:`hermetic.recording.drift`) reads. Data only: nothing here asks anything.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermetic.corpus.model import PROTOCOLS, CorpusError

__all__ = ["ADDRESSES_FILE", "ProviderAddress", "load_addresses", "parse_addresses"]

#: The table shipped beside the corpus.
ADDRESSES_FILE = Path(__file__).with_name("addresses.toml")

_VARIABLE = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_KEYS = {"base_url", "key_env", "protocols"}


@dataclass(frozen=True)
class ProviderAddress:
    """A provider's public API base, the variable its key is exported in, and the wire
    protocols that base answers."""

    provider: str
    base_url: str
    key_env: str
    protocols: tuple[str, ...] = ("chat_completions",)


def parse_addresses(document: Mapping[str, Any], where: str) -> dict[str, ProviderAddress]:
    """The table's providers by name; CorpusError in one line naming the provider and key."""
    addresses: dict[str, ProviderAddress] = {}
    for provider, table in document.items():
        at = f"{where}: [{provider}]"
        if not isinstance(table, dict):
            raise CorpusError(f"{at}: must be a table with base_url and key_env")
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise CorpusError(
                f"{at}: unknown key {unknown[0]!r}; known: {', '.join(sorted(_KEYS))}"
            )
        base_url, key_env = table.get("base_url"), table.get("key_env")
        if not isinstance(base_url, str) or not re.match(r"^https?://\S+$", base_url):
            raise CorpusError(f"{at}: base_url must be an http(s) URL, not {base_url!r}")
        if not isinstance(key_env, str) or not _VARIABLE.match(key_env):
            raise CorpusError(f"{at}: key_env must be a variable's name, not {key_env!r}")
        protocols = table.get("protocols", ["chat_completions"])
        if not isinstance(protocols, list) or not protocols or not set(protocols) <= set(PROTOCOLS):
            raise CorpusError(f"{at}: protocols must be some of {', '.join(PROTOCOLS)}")
        addresses[provider] = ProviderAddress(provider, base_url, key_env, tuple(protocols))
    return addresses


def load_addresses(path: Path = ADDRESSES_FILE) -> dict[str, ProviderAddress]:
    """The table at ``path`` (the one beside the corpus by default), checked."""
    try:
        document = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CorpusError(f"{path}: cannot be read: {exc}") from None
    return parse_addresses(document, str(path))

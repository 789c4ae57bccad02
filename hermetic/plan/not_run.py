"""Why a selected scenario is not run in this run, decided from the plan and its tags alone.

* **not claimed**: it checks a promise (``@promise.<name>``) the plugin's profile does not make
  (a scenario tagged with several promises needs them all; a profile naming an alias such as
  ``failure-table`` makes the promises it stands for, :mod:`hermetic.profile.promises`), a promise
  only a store can judge where no channel is a store, or it serves the words of a
  provider (``@provider.<name>``, a block of the provider outline) its ``[providers] only``
  leaves out;
* **skipped**: it describes Hermes releases other than the one under test
  (``@since.hermes-X``, ``@before.hermes-X``), it changes a directory plugin's copy and the
  plugin is a pip one, or it tries beyond loopback for real and this run has no network
  namespace (``@netns``).

The behave hooks skip with it, the reports label with it, and the runner uses it to refuse a
run that would run nothing, before anything starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hermetic.corpus.examples import RECORDED_TAG
from hermetic.hermes.install.releases import release_key
from hermetic.plan.settings import Settings
from hermetic.plugin_sources import kind_skip_reason
from hermetic.profile import Profile

#: A scenario checking a promise is tagged ``@promise.<name>``.
PROMISE_TAG = "promise."
#: A block of the provider outline serving one provider's words (``@provider.<slug>``).
PROVIDER_TAG = "provider."
#: Tags for behaviour that differs between Hermes releases (docs/background/hermes-releases.md).
SINCE_TAG = "since.hermes-"
BEFORE_TAG = "before.hermes-"
NOT_CLAIMED = "not claimed"
SKIPPED = "skipped"


@dataclass(frozen=True)
class NotRun:
    """A scenario this run does not run: ``status`` (not claimed, skipped) and why."""

    status: str
    reason: str


def promises_of(tags: Iterable[str]) -> list[str]:
    """The promises a scenario with ``tags`` checks."""
    return [tag[len(PROMISE_TAG) :] for tag in tags if tag.startswith(PROMISE_TAG)]


def promise_not_made(tags: Iterable[str], profile: Profile) -> NotRun | None:
    """The promises of ``tags`` the plugin's ``profile`` does not make, if any (the scenario
    is then not claimed; so is one for a provider the profile leaves out:
    :func:`provider_left_out`)."""
    tags = list(tags)
    missing = [name for name in promises_of(tags) if not profile.keeps(name, tags)]
    if not missing:
        return None
    where = profile.path or "no hermetic.toml"
    return NotRun(
        NOT_CLAIMED, f"not claimed by the plugin's profile ({where}): " + ", ".join(missing)
    )


def provider_left_out(tags: Iterable[str], profile: Profile) -> NotRun | None:
    """The provider of ``tags`` (``@provider.<slug>``) the profile's ``[providers] only`` leaves
    out, if any."""
    tags = list(tags)
    if RECORDED_TAG in tags:  # the author recorded it: always claimed
        return None
    for tag in tags:
        if tag.startswith(PROVIDER_TAG):
            provider = profile.corpus.provider(tag[len(PROVIDER_TAG) :])
            if not profile.supports(provider):
                where = profile.path or "no hermetic.toml"
                return NotRun(
                    NOT_CLAIMED,
                    f"not claimed by the plugin's profile ({where}): [providers] only leaves "
                    f"out {provider}",
                )
    return None


def other_release(tags: Iterable[str], version: str) -> NotRun | None:
    """Why a scenario does not apply to Hermes ``version``: it describes what releases from
    (``@since.hermes-X``) or before (``@before.hermes-X``) a release do."""
    running = release_key(version)
    for tag in tags:
        if tag.startswith(SINCE_TAG):
            release = tag[len(SINCE_TAG) :]
            if running < release_key(release):
                return NotRun(SKIPPED, f"describes Hermes {release} and later; this is {version}")
        elif tag.startswith(BEFORE_TAG):
            release = tag[len(BEFORE_TAG) :]
            if running >= release_key(release):
                return NotRun(SKIPPED, f"describes Hermes before {release}; this is {version}")
    return None


def why_not_run(tags: Iterable[str], settings: Settings) -> NotRun | None:
    """Why a scenario with these (effective) tags is not run with ``settings``, or None."""
    tags = list(tags)
    found = (
        promise_not_made(tags, settings.profile)
        or provider_left_out(tags, settings.profile)
        or other_release(tags, settings.hermes_version)
    )
    if found is not None:
        return found
    reason = kind_skip_reason(tags, settings.plugin) or settings.isolation.skip_reason(tags)
    return NotRun(SKIPPED, reason) if reason is not None else None

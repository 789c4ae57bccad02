"""The answers a plugin's author recorded (``[providers] answers``), served in a run: the rows
they add to the bundled provider outlines, and the lines that name an answer no outline serves.
(The mocks serve them from the profile's corpus, :attr:`hermetic.profile.Profile.corpus`.)"""

from __future__ import annotations

from pathlib import Path

from hermetic.corpus import Corpus
from hermetic.corpus.examples import OUTLINES, outline_of, served_as, with_recorded_rows
from hermetic.errors import ConfigError
from hermetic.plan.model import Suite
from hermetic.profile import Profile

__all__ = ["OUTLINE_FEATURE", "add_recorded_rows", "unserved"]

#: The bundled feature whose outline serves every provider's removed-model answer.
OUTLINE_FEATURE = OUTLINES[0].feature


def add_recorded_rows(profile: Profile, suite: Suite) -> None:
    """Add the rows of the profile's recorded answers to the outlines of the run's copy of the
    bundled features (a removed model to the removed-model outline, a rate limit or an
    overload to the failure table's). ConfigError in one line when the suite runs only the
    author's own features, whose files a run never changes."""
    if not profile.recorded:
        return
    if suite.bundled_at is None:
        raise ConfigError(
            f"{profile.path}: providers.answers: recorded answers join the bundled features' "
            "provider outlines; add --features bundled to run them beside your own features"
        )
    recorded = Corpus(profile.recorded)
    for outline in OUTLINES:
        feature = Path(suite.bundled_at) / outline.feature
        text = feature.read_text("utf-8")
        feature.write_text(with_recorded_rows(text, recorded, outline), "utf-8")


def unserved(profile: Profile) -> list[str]:
    """A line for each of the profile's recorded answers that is a row of no outline, so joins
    no promise: what it is, and why."""
    return [
        f"{profile.path}: providers.answers: {answer.name!r} ({answer.provider}, "
        f"{answer.situation}, {answer.status}) {served_as(answer)}"
        for answer in profile.recorded
        if outline_of(answer) is None
    ]

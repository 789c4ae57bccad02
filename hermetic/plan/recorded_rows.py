"""The answers a plugin's author recorded (``[providers] answers``), served in a run: the rows
they add to the bundled removed-model outline. (The mocks serve them from the profile's
corpus, :attr:`hermetic.profile.Profile.corpus`.)"""

from __future__ import annotations

from pathlib import Path

from hermetic.corpus import Corpus
from hermetic.corpus.examples import with_recorded_rows
from hermetic.errors import ConfigError
from hermetic.plan.model import Suite
from hermetic.profile import Profile

__all__ = ["OUTLINE_FEATURE", "add_recorded_rows"]

#: The bundled feature whose outline serves every provider's removed-model answer.
OUTLINE_FEATURE = "every_provider.feature"


def add_recorded_rows(profile: Profile, suite: Suite) -> None:
    """Add the rows of the profile's recorded answers to the outline of the run's copy of the
    bundled features. ConfigError in one line when the suite runs only the author's own
    features, whose files a run never changes."""
    if not profile.recorded:
        return
    if suite.bundled_at is None:
        raise ConfigError(
            f"{profile.path}: providers.answers: recorded answers join the bundled features' "
            "provider outline; add --features bundled to run it beside your own features"
        )
    feature = Path(suite.bundled_at) / OUTLINE_FEATURE
    text = feature.read_text("utf-8")
    feature.write_text(with_recorded_rows(text, Corpus(profile.recorded)), "utf-8")

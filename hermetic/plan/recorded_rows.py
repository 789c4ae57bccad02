"""The answers a plugin's author recorded (``[providers] answers``), served in a run: the rows
they add to the bundled removed-model outline, and the corpus every process of the run serves
them from (:func:`hermetic.corpus.serve_recorded`)."""

from __future__ import annotations

from pathlib import Path

from hermetic.corpus import Corpus, serve_recorded
from hermetic.corpus.examples import with_recorded_rows
from hermetic.errors import ConfigError
from hermetic.plan.model import Suite
from hermetic.profile import Profile

__all__ = ["OUTLINE_FEATURE", "serve_recorded_answers"]

#: The bundled feature whose outline serves every provider's removed-model answer.
OUTLINE_FEATURE = "every_provider.feature"


def serve_recorded_answers(profile: Profile, suite: Suite | None = None) -> None:
    """Serve the profile's recorded answers in this process, and (with ``suite``) add their
    rows to the outline of the run's copy of the bundled features. ConfigError in one line when
    the suite runs only the author's own features, whose files a run never changes."""
    serve_recorded(profile.recorded)
    if suite is None or not profile.recorded:
        return
    if suite.bundled_at is None:
        raise ConfigError(
            f"{profile.path}: providers.answers: recorded answers join the bundled features' "
            "provider outline; add --features bundled to run it beside your own features"
        )
    feature = Path(suite.bundled_at) / OUTLINE_FEATURE
    text = feature.read_text("utf-8")
    feature.write_text(with_recorded_rows(text, Corpus(profile.recorded)), "utf-8")

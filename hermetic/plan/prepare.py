"""The run's preparation, outside any namespace: every install, and whether a namespace can be made.

    python -m hermetic.plan.prepare [BEHAVE ARGS]
    # its last line: {"reason": null | "why not"}

It reads the ``-D`` options exactly as behave will (behave's own configuration, with the
project's ``[tool.behave.userdata]``) and resolves them with the same
:meth:`hermetic.plan.settings.Settings.from_userdata` that behave's ``before_all`` calls, so
whatever that resolution installs (Hermes' environments, a profile's ``[requires]``, other
builds, pip plugins, Hermes with the extra a selected scenario's wire protocol needs) is
installed here, with the registry in reach; inside the namespace the same resolution then finds
it all ready. A settings error is printed once and left for behave to report in its reports, as
a run that cannot start always is.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from hermetic.errors import HarnessError
from hermetic.hermes.protocols import TAG_PREFIX
from hermetic.isolation.netns import ISOLATION_VARIABLE
from hermetic.isolation.netns.confinement import why_no_namespace


def resolve_settings(behave_args: Sequence[str]) -> None:
    """``Settings.from_userdata`` over the userdata behave will see; errors printed once."""
    from behave.configuration import Configuration  # imported here: the probe forks first

    from hermetic.plan.settings import Settings

    try:
        config = Configuration(list(behave_args))
    except SystemExit:
        return  # behave's own argument error: behave will say it
    try:
        Settings.from_userdata(config.userdata, scenario_tags=selected_tags(config))
    except HarnessError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)


def selected_tags(config: Any) -> list[frozenset[str]]:
    """The tags of every scenario behave's ``config`` selects by tag (outline rows included),
    for the scenarios whose protocol needs Hermes with an extra. A feature file behave cannot
    parse is left for behave to report."""
    from behave.parser import ParserError, parse_file

    found = []
    for path in _feature_files(config.paths or ["features"]):
        try:
            feature = parse_file(str(path))
        except (ParserError, OSError, UnicodeDecodeError):
            continue
        if feature is None:
            continue
        for scenario in feature.walk_scenarios():
            tags = frozenset(scenario.effective_tags)
            if any(tag.startswith(TAG_PREFIX) for tag in tags) and config.tag_expression.check(
                tags
            ):
                found.append(tags)
    return found


def _feature_files(paths: Sequence[str]) -> Iterator[Path]:
    for text in paths:
        path = Path(text.rpartition(":")[0] if text.rpartition(":")[2].isdigit() else text)
        if path.is_dir():
            yield from sorted(path.rglob("*.feature"))
        elif path.suffix == ".feature":
            yield path


def main(argv: Sequence[str] | None = None) -> int:
    behave_args = list(sys.argv[1:] if argv is None else argv)
    # Out here nothing is promised: a promise inherited from an outer run is not this one's.
    os.environ.pop(ISOLATION_VARIABLE, None)
    reason = why_no_namespace()  # first: it forks, best before anything starts a thread
    resolve_settings(behave_args)
    print(json.dumps({"reason": reason}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

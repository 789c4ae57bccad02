"""The behave side of a parallel run's listing (hermetic.runs.listing): what ``ARGS`` select.

    python -m hermetic.integrations.behave.listing_formatter --out listing.json -- [BEHAVE ARGS...]

runs ``behave --dry-run ARGS`` with :class:`ListingFormatter`, which records each scenario
behave decides to run (outline rows one by one) in run order, and adds what only behave's own
option parser can tell: ``ARGS`` without their feature paths (each worker is given one
``file:line`` instead), the ``-D sandbox_root=`` asked for, and the console formats asked for
(a parallel run's console is its own: one line per scenario). It refuses options that write
reports: a parallel run writes the reports itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NamedTuple

from behave.formatter.base import Formatter
from behave.runner import Runner

from hermetic.integrations.behave import internals

FORMATTER = "hermetic.integrations.behave.listing_formatter:ListingFormatter"
RUNNER = "hermetic.integrations.behave.listing_formatter:ListingRunner"
# A parallel run owns the reports; a report option here would make every worker overwrite
# the same file. (A --format without an --outfile only chooses the console's look.)
_REPORT_OPTIONS = ("-o", "--outfile", "--junit", "--no-junit")


class ArgumentsError(ValueError):
    """Arguments a parallel run cannot honour."""


class ListingRunner(Runner):
    """behave's runner without the suite's hooks and steps: a dry run only selects, and what
    it selects depends on the feature files and the arguments alone. Importing the step
    library (and everything it imports) cost about 1 s of CPU a listing; a run is listed
    before it starts, so a selection of no scenario is said that much sooner."""

    def load_hooks(self, filename: str | None = None) -> None:
        self.hooks["before_all"] = self.before_all_default_hook

    def load_step_definitions(self, extra_step_paths: Any = None) -> None:
        return None


class ListingFormatter(Formatter):
    """Records the scenarios behave would run (use with ``--dry-run``)."""

    name = "hermetic-listing"
    description = "JSON list of the scenarios a run selects (for parallel runs)"

    def __init__(self, stream_opener: Any, config: Any) -> None:
        super().__init__(stream_opener, config)
        self._feature: Any = None
        self._features: dict[str, dict[str, Any]] = {}
        self._scenarios: list[dict[str, Any]] = []

    def feature(self, feature: Any) -> None:
        self._feature = feature

    def scenario(self, scenario: Any) -> None:
        # behave also reports deselected scenarios when show_skipped is on.
        if not scenario.should_run(self.config):
            return
        feature = self._feature
        if feature.filename not in self._features:
            self._features[feature.filename] = {
                "keyword": feature.keyword,
                "name": feature.name,
                "tags": list(feature.tags),
                "location": str(feature.location),
                "description": list(feature.description),
                # The JUnit file a serial run names after this feature; the merge uses it.
                "junit": _junit_basename(feature, self.config),
            }
        element: dict[str, Any] = {
            "type": "scenario",
            "keyword": scenario.keyword,
            "name": scenario.name,
            "tags": list(scenario.tags),
            "location": str(scenario.location),
            "steps": [_step(step) for step in scenario.all_steps],
            "status": None,
        }
        if scenario.description:
            element["description"] = list(scenario.description)
        self._scenarios.append(element)

    def close(self) -> None:
        stream = self.open()
        stream.write(json.dumps({"features": self._features, "scenarios": self._scenarios}))
        self.close_stream()


class WorkerArguments(NamedTuple):
    """What every worker is given instead of ``ARGS``, and what was dropped from them."""

    args: list[str]  # ARGS without feature paths and console formats
    sandbox_root: str  # -D sandbox_root= as given (the last one wins, as in behave), or ""
    console_formats: list[str]  # -f NAME without an --outfile: the console's, not a report


def worker_arguments(args: list[str]) -> WorkerArguments:
    """Split ``ARGS`` for the workers; raise ArgumentsError for arguments behave refuses and
    for options that write reports (``--outfile``, ``--junit``: a parallel run owns them)."""
    parser = internals.option_parser()
    try:
        parsed = parser.parse_intermixed_args(args)
    except SystemExit:
        raise ArgumentsError(f"behave does not accept these arguments: {' '.join(args)}") from None
    if any(arg.startswith(_REPORT_OPTIONS) for arg in args):
        raise ArgumentsError(
            "a parallel run writes the reports itself: drop --outfile/--junit (or run with "
            "--jobs 1)"
        )
    kept, formats = _without_formats(args)
    for path in parsed.paths or []:
        del kept[len(kept) - 1 - kept[::-1].index(path)]
    defines = dict(parsed.userdata_defines or [])  # (name, value) pairs; the last one wins
    return WorkerArguments(kept, str(defines.get("sandbox_root", "")).strip(), formats)


def _without_formats(args: list[str]) -> tuple[list[str], list[str]]:
    """``args`` without ``-f NAME`` / ``--format=NAME`` options, and those names."""
    kept: list[str] = []
    formats: list[str] = []
    items = iter(args)
    for arg in items:
        if arg in ("-f", "--format"):
            formats.append(next(items, ""))
        elif arg.startswith("--format="):
            formats.append(arg.removeprefix("--format="))
        elif arg.startswith("-f") and not arg.startswith("--"):
            formats.append(arg.removeprefix("-f"))
        else:
            kept.append(arg)
    return kept, formats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("behave_args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    args = options.behave_args[1:] if options.behave_args[:1] == ["--"] else options.behave_args
    try:
        worker = worker_arguments(args)
    except ArgumentsError as exc:
        print(f"hermetic: {exc}", file=sys.stderr)
        return 2
    code = internals.behave_main(
        [
            "--dry-run",
            f"--runner={RUNNER}",
            "--no-summary",
            "--no-snippets",
            f"--format={FORMATTER}",
            f"--outfile={options.out}",
            *args,
        ]
    )
    try:
        listing = json.loads(options.out.read_text("utf-8"))
    except (OSError, ValueError):
        return code or 1  # behave said why on stderr; hermetic.runs.listing shows it
    listing.update(
        worker_args=worker.args,
        sandbox_root=worker.sandbox_root,
        console_formats=worker.console_formats,
    )
    options.out.write_text(json.dumps(listing), "utf-8")
    return 0


def _step(step: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "keyword": step.keyword,
        "step_type": step.step_type,
        "name": step.name,
        "location": str(step.location),
    }
    if step.text:
        data["text"] = str(step.text)
    if step.table:
        data["table"] = {
            "headings": list(step.table.headings),
            "rows": [list(row) for row in step.table.rows],
        }
    return data


def _junit_basename(feature: Any, config: Any) -> str:
    """``TESTS-<name>.xml`` as behave's JUnit reporter names it in a serial run of these
    arguments (the name depends on the paths given; a worker's ``file:line`` would differ)."""
    return f"TESTS-{internals.junit_feature_name(config, feature)}.xml"


if __name__ == "__main__":
    sys.exit(main())

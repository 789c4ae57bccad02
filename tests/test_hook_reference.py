"""The measured reference of what Hermes tells a plugin: its JSON, its page, its changes."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from hermetic.corpus import ProviderAnswer, bundled_corpus
from hermetic.hermes.reference.hook_reference import (
    PROTOCOL_TITLES,
    REFERENCE_JSON,
    Call,
    Outcome,
    Reference,
    Row,
    load_reference,
    release_changes,
    render_markdown,
)

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "reference" / "hermes-tells-the-plugin.md"
TOOL = REFERENCE_JSON.with_name("measure_hook_reference.py")

UNKNOWN = Call(404, "unknown", True, "NotFoundError", 0, 3)
GONE = Call(404, "model_not_found", False, "NotFoundError", 0, 3)
RELEASES = (
    {"label": "0.16.0", "distribution": "hermes-agent", "version": "0.16.0", "version_line": "v"},
    {"label": "0.19.0", "distribution": "hermes-agent", "version": "0.19.0", "version_line": "v"},
)


def outcome(*calls: Call, job: str = "error") -> Outcome:
    return Outcome(calls=calls, job=job, requests=len(calls))


def reference(rows: tuple[Row, ...]) -> Reference:
    return Reference(RELEASES, {"Retries": "Hermes' default"}, "python tools/x.py", rows)


def row(name: str, **outcomes: Outcome) -> Row:
    return Row(
        name,
        "Anthropic",
        "not_found_error (404)",
        "anthropic_messages",
        "removed-model",
        404,
        {label.replace("_", "."): value for label, value in outcomes.items()},
    )


SAME = row(
    "same", v0_16_0=outcome(UNKNOWN, UNKNOWN, UNKNOWN), v0_19_0=outcome(UNKNOWN, UNKNOWN, UNKNOWN)
)


def fix_labels(item: Row) -> Row:
    return Row(
        item.answer,
        item.provider,
        item.words,
        item.protocol,
        item.situation,
        item.status,
        {label.removeprefix("v"): value for label, value in item.outcomes.items()},
    )


def test_the_json_round_trips() -> None:
    document = reference((fix_labels(SAME),))

    assert Reference.from_json(document.to_json()) == document


def test_an_answer_alike_on_every_release_is_one_line() -> None:
    page = render_markdown(reference((fix_labels(SAME),)))

    [line] = [text for text in page.splitlines() if text.startswith("| Anthropic")]
    assert line == (
        "| Anthropic | not_found_error (404) | 404 | all | 404 | `unknown` | yes "
        "| `NotFoundError` | 3 | error | 3 |"
    )
    assert "Nothing: every answer is treated alike" in page


def test_an_answer_that_changed_gets_a_line_per_release_and_is_named() -> None:
    changed = fix_labels(
        row("changed", v0_16_0=outcome(UNKNOWN, UNKNOWN, UNKNOWN), v0_19_0=outcome(GONE))
    )
    document = reference((changed,))

    page = render_markdown(document)

    lines = [text for text in page.splitlines() if text.startswith("| Anthropic")]
    assert [line.split(" | ")[3] for line in lines] == ["**0.16.0**", "**0.19.0**"]
    [change] = release_changes(document, ["0.16.0", "0.19.0"])
    assert (change.before, change.after) == ("0.16.0", "0.19.0")
    assert "0.16.0 status_code=404 reason='unknown' retryable=True, 3 call(s)" in change.describe()
    assert "job error, 3 request(s) to the provider" in change.describe()
    assert change.describe() in page


def test_changes_are_looked_for_only_between_the_releases_asked_for() -> None:
    changed = fix_labels(row("changed", v0_16_0=outcome(UNKNOWN), v0_19_0=outcome(GONE)))
    document = reference((changed,))

    assert release_changes(document, ["0.19.0", "0.22.2.post1"]) == []
    assert len(release_changes(document, ["0.16.0", "0.19.0"])) == 1


def test_calls_that_disagree_within_a_job_are_marked() -> None:
    mixed = fix_labels(row("mixed", v0_16_0=outcome(UNKNOWN, GONE), v0_19_0=outcome(UNKNOWN, GONE)))

    page = render_markdown(reference((mixed,)))

    assert "| 2 (not all alike) |" in page


def test_no_hook_call_is_said_so() -> None:
    healthy = fix_labels(row("ok", v0_16_0=outcome(job="ok"), v0_19_0=outcome(job="ok")))

    page = render_markdown(reference((healthy,)))

    assert "| all | - | - | - | - | 0 | ok | 0 |" in page


def test_a_missing_reference_reads_as_none(tmp_path: Path) -> None:
    assert load_reference(tmp_path / "none.json") is None
    (tmp_path / "bad.json").write_text("{", "utf-8")
    assert load_reference(tmp_path / "bad.json") is None


def test_the_committed_page_is_what_the_committed_json_renders() -> None:
    document = load_reference(REFERENCE_JSON)

    assert document is not None, f"{REFERENCE_JSON} is missing or unreadable"
    assert PAGE.read_text("utf-8") == render_markdown(document), (
        f"{PAGE} differs from what {REFERENCE_JSON} renders: run "
        "`.venv/bin/python -m hermetic.hermes.reference.measure_hook_reference --render`"
    )


def test_the_reference_covers_three_releases_and_every_protocol_the_mock_serves() -> None:
    document = load_reference(REFERENCE_JSON)

    assert document is not None
    assert len(document.labels) >= 3
    protocols = {row.protocol for row in document.rows}
    assert {
        "chat_completions",
        "anthropic_messages",
        "bedrock_converse",
        "codex_responses",
    } <= protocols
    unmeasured = [
        (row.answer, label)
        for row in document.rows
        for label in document.labels
        if label not in row.outcomes
    ]
    assert unmeasured == []


def test_more_requests_than_hook_calls_on_one_release_is_a_change() -> None:
    # Hermes 0.16.0's Anthropic client retried a 529 on its own: 9 requests, 3 hook calls.
    sdk_retries = Outcome(calls=(UNKNOWN,) * 3, job="error", requests=9)
    retried = fix_labels(
        row("sdk", v0_16_0=sdk_retries, v0_19_0=outcome(UNKNOWN, UNKNOWN, UNKNOWN))
    )
    document = reference((retried,))

    [change] = release_changes(document, ["0.16.0", "0.19.0"])

    assert "3 call(s), job error, 9 request(s) to the provider" in change.describe()
    lines = [text for text in render_markdown(document).splitlines() if "| **0.16.0** |" in text]
    assert lines[0].endswith("| 3 | error | 9 |")


# -- every corpus answer is in the reference, on every build the tool measures ----------------


def _tool_builds() -> tuple[str, ...]:
    """measure_hook_reference's BUILDS, read from its source (the module itself imports Hermes'
    whole world)."""
    tree = ast.parse(TOOL.read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "BUILDS"
        ]:
            return tuple(ast.literal_eval(node.value))
    raise AssertionError(f"{TOOL} has no BUILDS")


def _label_of(build: str, document: Reference) -> str | None:
    """The reference's label for a build as the tool names it (a release, or a requirement)."""
    distribution, _, version = build.rpartition("==")
    for release in document.releases:
        if release.get("version") == version and (
            not distribution or release.get("distribution") == distribution
        ):
            return release["label"]
    return None


def _page_sections(page: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = ""
    for line in page.splitlines():
        if line.startswith("## "):
            current = line[3:]
        sections.setdefault(current, []).append(line)
    return sections


def _escaped(text: str) -> str:
    return text.replace("|", "\\|")


def coverage_problems(
    answers: Iterable[ProviderAnswer], document: Reference, page: str, builds: Sequence[str]
) -> list[str]:
    """What the reference lacks for these corpus answers: a row, a build's measurement, the
    corpus's own words, or a line on the page under the answer's protocol."""
    problems = []
    labels = {}
    for build in builds:
        label = _label_of(build, document)
        if label is None:
            problems.append(f"build {build}: no release of the reference is it")
        else:
            labels[build] = label
    rows = {row.answer: row for row in document.rows}
    sections = _page_sections(page)
    for answer in answers:
        row = rows.get(answer.name)
        if row is None:
            problems.append(f"{answer.name}: no row in {REFERENCE_JSON.name}")
            continue
        said = (row.provider, row.words, row.protocol, row.status)
        if said != (answer.provider, answer.words, answer.protocol, answer.status):
            problems.append(f"{answer.name}: the row says {said}, the corpus something else")
        for build, label in labels.items():
            if label not in row.outcomes:
                problems.append(f"{answer.name}: not measured on {build}")
        title = PROTOCOL_TITLES.get(answer.protocol, answer.protocol)
        lead = f"| {_escaped(answer.provider)} | {_escaped(answer.words)} | {answer.status} |"
        if not any(line.startswith(lead) for line in sections.get(title, [])):
            problems.append(f"{answer.name}: no line on the page under '{title}'")
    return problems


REGENERATE = (
    "regenerate them: .venv/bin/python -m hermetic.hermes.reference.measure_hook_reference "
    "--answers NAME "
    "(outside any network namespace; all three builds by default)"
)


def test_every_corpus_answer_has_a_row_on_every_build_and_a_line_on_the_page() -> None:
    document = load_reference(REFERENCE_JSON)
    assert document is not None, f"{REFERENCE_JSON} is missing or unreadable"

    problems = coverage_problems(
        bundled_corpus(), document, PAGE.read_text("utf-8"), _tool_builds()
    )

    assert problems == [], f"{'; '.join(problems)}: {REGENERATE}"


def test_the_tool_measures_three_builds() -> None:
    assert len(_tool_builds()) == 3


def test_a_corpus_answer_without_a_row_is_named() -> None:
    document = load_reference(REFERENCE_JSON)
    assert document is not None
    corpus = list(bundled_corpus())
    extra = corpus[0].model_copy(update={"name": "acme-model-gone", "words": "gone away (404)"})

    problems = coverage_problems(
        [*corpus, extra], document, PAGE.read_text("utf-8"), _tool_builds()
    )

    assert problems == ["acme-model-gone: no row in hook_reference.json"]


@pytest.mark.parametrize("build", range(3))
def test_an_answer_missing_on_one_build_is_named(build: int) -> None:
    document = load_reference(REFERENCE_JSON)
    assert document is not None
    builds = _tool_builds()
    label = _label_of(builds[build], document)
    first = document.rows[0]
    trimmed = Row(
        first.answer,
        first.provider,
        first.words,
        first.protocol,
        first.situation,
        first.status,
        {key: value for key, value in first.outcomes.items() if key != label},
    )
    broken = Reference(
        document.releases, document.settings, document.generated_by, (trimmed, *document.rows[1:])
    )

    problems = coverage_problems(bundled_corpus(), broken, render_markdown(broken), builds)

    assert problems == [f"{first.answer}: not measured on {builds[build]}"]


def test_an_answer_the_page_leaves_out_is_named() -> None:
    document = load_reference(REFERENCE_JSON)
    assert document is not None
    gemini = bundled_corpus().named("gemini-openai-not-found")
    page = "\n".join(
        line
        for line in PAGE.read_text("utf-8").splitlines()
        if not line.startswith("| Google Gemini |")
    )

    problems = coverage_problems([gemini], document, page, _tool_builds())

    assert problems == [
        "gemini-openai-not-found: no line on the page under "
        "'OpenAI's chat completions (any OpenAI-compatible provider)'"
    ]

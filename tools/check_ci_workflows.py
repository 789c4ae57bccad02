#!/usr/bin/env python3
"""Check the workflows ``hermetic init --ci`` writes, offline, as their users' CI would read them.

1. ``hermetic init --ci github`` and ``--ci gitlab`` in a scratch plugin repository: each file is
   accepted by the schema check-jsonschema ships for it (``vendor.github-workflows``,
   ``vendor.gitlab-ci``), zizmor finds nothing of medium severity or more in the GitHub one, and
   neither installs hermetic by its bare name (it is on no index).
2. The checks are not vacuous: the GitHub workflow made unsafe on purpose (triggered by
   ``pull_request_target`` and checking out with persisted credentials) is flagged by zizmor,
   and a GitLab file with a misspelt keyword is refused by its schema.

    .venv/bin/python tools/check_ci_workflows.py
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
GITHUB = Path(".github") / "workflows" / "hermetic.yml"
GITLAB = Path(".gitlab-ci.yml")


def run(*command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    print(f"[ci-workflows] {' '.join(command)}", flush=True)
    result = subprocess.run(
        list(command), cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    output = (result.stdout + result.stderr).strip()
    if output:
        print("    " + output.replace("\n", "\n    "), flush=True)
    return result


def schema(name: str, path: Path, cwd: Path) -> bool:
    """Whether check-jsonschema's built-in schema ``name`` accepts ``path`` (offline)."""
    command = [str(BIN / "check-jsonschema"), "--builtin-schema", name, str(path)]
    return run(*command, cwd=cwd).returncode == 0


def zizmor(path: Path, cwd: Path) -> set[str]:
    """The audits zizmor (offline) reports at medium severity or more."""
    # Plain text whatever the terminal: under CI=true zizmor colours its output, and the
    # escape codes hid every audit name from the pattern below (the unsafe check then failed).
    command = [
        str(BIN / "zizmor"),
        "--offline",
        "--color",
        "never",
        "--min-severity",
        "medium",
        str(path),
    ]
    output = run(*command, cwd=cwd).stdout
    return set(re.findall(r"^(?:error|warning)\[([a-z-]+)\]", output, re.MULTILINE))


#: An install of hermetic by its bare name (with extras or a version): hermetic is on no index,
#: so that would install whatever anyone registers under the name.
BARE_NAME = re.compile(
    r"pip install +([\"']?)hermetic(\[[^\]]*\])?(==[^\"'\s]*)?\1(?=\s|$)(?!\s*@)"
)


#: What the unsafe workflow must be flagged for.
UNSAFE_AUDITS = {"dangerous-triggers", "template-injection"}


def unsafe(workflow: str) -> str:
    """The workflow with mistakes its header warns against: the fork's trigger with the base
    repository's rights, and a pull request's title expanded into a shell command."""
    return workflow.replace("  pull_request:\n", "  pull_request_target:\n", 1).replace(
        "run: hermetic merge-reports shards/* --into reports",
        'run: echo "${{ github.event.pull_request.title }}"',
    )


def main() -> int:
    problems = []
    with tempfile.TemporaryDirectory(prefix="hermetic-ci-") as scratch:
        root = Path(scratch) / "plugin"
        shutil.copytree(REPO / "alerts_plugin", root, ignore=shutil.ignore_patterns("__pycache__"))
        for kind in ("github", "gitlab"):
            if run(str(BIN / "hermetic"), "init", "--ci", kind, ".", cwd=root).returncode != 0:
                problems.append(f"hermetic init --ci {kind} failed")
        if not schema("vendor.github-workflows", GITHUB, root):
            problems.append(f"{GITHUB}: refused by GitHub's workflow schema")
        found = zizmor(GITHUB, root)
        if found:
            problems.append(f"{GITHUB}: zizmor found {', '.join(sorted(found))}")
        if not schema("vendor.gitlab-ci", GITLAB, root):
            problems.append(f"{GITLAB}: refused by GitLab's CI schema")
        for path in (GITHUB, GITLAB):
            named = BARE_NAME.search((root / path).read_text("utf-8"))
            if named:
                problems.append(f"{path}: installs hermetic by name ({named[0].strip()})")

        broken = Path(scratch) / "broken"
        (broken / GITHUB.parent).mkdir(parents=True)
        (broken / GITHUB).write_text(unsafe((root / GITHUB).read_text("utf-8")), "utf-8")
        missed = UNSAFE_AUDITS - zizmor(GITHUB, broken)
        if missed:
            problems.append(f"zizmor missed {', '.join(sorted(missed))} in an unsafe workflow")
        gitlab = (root / GITLAB).read_text("utf-8").replace("  artifacts:\n", "  artefacts:\n", 1)
        (broken / GITLAB).write_text(gitlab, "utf-8")
        if schema("vendor.gitlab-ci", GITLAB, broken):
            problems.append("GitLab's schema accepted a misspelt keyword")
        by_name = (
            (root / GITLAB)
            .read_text("utf-8")
            .replace('"hermetic @ ${HERMETIC_SOURCE}"', '"hermetic==0.2.0"', 1)
        )
        if not BARE_NAME.search(by_name):
            problems.append("an install of hermetic by name went unnoticed")
    for problem in problems:
        print(f"[ci-workflows] WRONG: {problem}", flush=True)
    print(f"[ci-workflows] {'FAILED' if problems else 'all checks as expected'}", flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

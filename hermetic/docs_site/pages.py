"""The documentation site's generated reference pages, rendered from the code at every build.

``mkdocs build`` loads this file as a hook (mkdocs.yml, ``hooks:``); its ``on_files`` adds
these pages to the build, so nothing is written into docs/ and nothing can go stale:

- ``reference/cli.md``: ``hermetic --help`` and each command's ``--help``, from the argparse
  parsers the command itself uses (``hermetic.cli.build_parser``), so the page cannot drift;
- ``reference/steps.md``: the step catalogue, ``STEPS.md`` (written from the step library by
  ``tools/check_steps.py --write``, which fails CI when it is stale);
- ``reference/contract.md``: the alert contract, rendered by ``hermetic.contract.document``
  (``CONTRACT.md`` is the same text, checked by tests/test_contract.py).

Run it alone to print the CLI page: ``python -m hermetic.docs_site.pages cli``. The site is
built from a checkout (``STEPS.md`` is a file of the repository, not of the package).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

#: The checkout this module sits in.
REPO = Path(__file__).resolve().parents[2]
#: argparse wraps help to the terminal's width: the page is rendered at one width everywhere.
WIDTH = "100"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference() -> str:
    """Markdown for every command's ``--help``, exactly as the command prints it."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        from hermetic.cli import build_parser

        parser = build_parser()
        parts = [
            "# Command line: `hermetic`",
            "",
            "Every command's `--help`, generated from the parsers the command itself uses",
            "(`hermetic/cli/`, one module per command) each time the site is built. Exit statuses:",
            "[exit status](exit-status.md). Options a command does not know are refused, never",
            "passed on; arguments after the command's own options go to behave (`--tags`, `-n`,",
            "`-D key=value`, a feature file's `path:line`).",
            "",
            "## `hermetic`",
            "",
            "```text",
            parser.format_help().rstrip(),
            "```",
        ]
        for name, command in _subcommands(parser).items():
            parts += ["", f"## `hermetic {name}`", "", "```text", command.format_help().rstrip()]
            parts += ["```"]
        return "\n".join(parts) + "\n"
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def steps_reference() -> str:
    """The step catalogue as committed (``tools/check_steps.py`` keeps it equal to the code)."""
    return (REPO / "STEPS.md").read_text("utf-8")


def contract_reference() -> str:
    """The alert contract, rendered from its one definition."""
    from hermetic.contract.document import render

    return render()


PAGES = {
    "reference/cli.md": cli_reference,
    "reference/steps.md": steps_reference,
    "reference/contract.md": contract_reference,
}


def on_files(files: Any, config: Any) -> Any:
    """mkdocs' hook: add every generated page to the build's files."""
    from mkdocs.structure.files import File

    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    return files


def main(argv: list[str] | None = None) -> int:
    """``cli``: print the CLI page (the other pages are files already: STEPS.md, CONTRACT.md)."""
    if (sys.argv[1:] if argv is None else argv) != ["cli"]:
        print("usage: python -m hermetic.docs_site.pages cli", file=sys.stderr)
        return 2
    sys.stdout.write(cli_reference())
    return 0


if __name__ == "__main__":
    sys.exit(main())

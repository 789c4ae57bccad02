"""hermetic.docs_site.pages: the site's pages made from the code, as mkdocs' hook adds them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import yaml

from hermetic.cli import COMMANDS
from hermetic.docs_site import pages

REPO = Path(__file__).resolve().parent.parent


def test_mkdocs_loads_the_hook_from_the_library() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))

    assert [REPO / hook for hook in config["hooks"]] == [Path(pages.__file__).resolve()]


def test_the_cli_page_has_every_commands_help() -> None:
    page = pages.cli_reference()

    assert page.startswith("# Command line: `hermetic`\n")
    for name in COMMANDS:
        assert f"\n## `hermetic {name}`\n" in page, name


def test_the_hook_adds_every_generated_page() -> None:
    config = SimpleNamespace(
        site_dir="/tmp/site",
        use_directory_urls=False,
        plugins=SimpleNamespace(_current_plugin=None),
    )

    files = pages.on_files([], config)

    assert [file.src_uri for file in files] == list(pages.PAGES)
    assert all(file.content_string for file in files)


def test_it_prints_the_cli_page_as_a_module_and_refuses_anything_else() -> None:
    command = [sys.executable, "-m", "hermetic.docs_site.pages"]
    done = subprocess.run([*command, "cli"], capture_output=True, text=True, check=False)
    wrong = subprocess.run([*command, "steps"], capture_output=True, text=True, check=False)

    assert (done.returncode, done.stdout) == (0, pages.cli_reference())
    assert wrong.returncode == 2
    assert "usage: python -m hermetic.docs_site.pages cli" in wrong.stderr

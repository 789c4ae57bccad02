"""hermetic.hermes.reference.find_hermes_variables: the environment variables Hermes reads, found
by reading its code."""

from __future__ import annotations

import zipfile
from pathlib import Path

from hermetic.hermes.reference import find_hermes_variables as tool
from hermetic.hermes.reference import variables_hermes_reads
from hermetic.hermes.reference.variables_hermes_reads import HERMES_VARIABLES, RELEASES

CONFIG = """
import os
from os import environ

def get_env_value(key, default=None):
    return os.environ.get(key, default)

def _env_int(name: str, default: int) -> int:
    return int(os.getenv(name) or default)

class Settings:
    def flag(self, name):
        return name in os.environ

HOME = os.environ["HERMES_HOME"]
DEBUG = os.getenv("HERMES_DEBUG")
PROXY = environ.get("HTTPS_PROXY")
if "NO_COLOR" in os.environ:
    pass
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
"""
CALLER = """
from config import get_env_value, _env_int

KEY = get_env_value("OPENAI_API_KEY")
WORKERS = _env_int("HERMES_CRON_MAX_PARALLEL", 4)
LABEL = {"x": "NOT_AN_ENV_READ"}.get("NOT_AN_ENV_READ")
NAME = "HERMES_AGENT_TIMEOUT"
PARTIAL = "HERMES_"
print(get_env_value(f"{NAME}_X"))
"""


def wheel(tmp_path: Path, **modules: str) -> Path:
    path = tmp_path / "hermes_agent-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in modules.items():
            archive.writestr(f"{name}.py", text)
        archive.writestr("broken.py", "def (:\n  HERMES_NEVER = os.environ['HERMES_NEVER']\n")
    return path


def test_reads_direct_and_through_helpers_and_hermes_literals(tmp_path: Path) -> None:
    found = tool.variables_read(wheel(tmp_path, config=CONFIG, caller=CALLER))
    assert found == {
        "HERMES_HOME",
        "HERMES_DEBUG",
        "HTTPS_PROXY",
        "NO_COLOR",
        "TOKENIZERS_PARALLELISM",
        "OPENAI_API_KEY",
        "HERMES_CRON_MAX_PARALLEL",
        "HERMES_AGENT_TIMEOUT",
    }


def test_bundled_plugins_that_run_only_when_enabled_are_left_out(tmp_path: Path) -> None:
    reads = 'import os\nKEY = os.environ.get("{name}")\n'
    path = tmp_path / "hermes_agent-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("plugins/observability/langfuse/plugin.yaml", "name: langfuse\n")
        archive.writestr(
            "plugins/observability/langfuse/__init__.py", reads.format(name="LANGFUSE_SECRET_KEY")
        )
        archive.writestr("plugins/image_gen/openai/plugin.yaml", "name: x\nkind: backend\n")
        archive.writestr(
            "plugins/image_gen/openai/__init__.py", reads.format(name="OPENAI_IMAGE_KEY")
        )
        archive.writestr("plugins/memory/honcho/plugin.yaml", "name: honcho\n")
        archive.writestr("plugins/memory/honcho/client.py", reads.format(name="HONCHO_API_KEY"))
    assert tool.variables_read(path) == {"OPENAI_IMAGE_KEY", "HONCHO_API_KEY"}


def test_the_data_module_is_what_the_tool_writes() -> None:
    read = {name: list(releases) for name, releases in HERMES_VARIABLES.items()}
    assert tool.render(read) == tool.OUTPUT.read_text("utf-8")
    assert RELEASES == tuple(label for label, _ in tool.RELEASES)
    assert tool.OUTPUT == Path(variables_hermes_reads.__file__).resolve()
    assert f"Written by ``{tool.COMMAND}``" in (variables_hermes_reads.__doc__ or "")


def test_the_data_holds_what_isolation_rests_on_and_no_plugins_own_names() -> None:
    for name in ("HERMES_HOME", "HERMES_CRON_MAX_PARALLEL", "OPENAI_API_KEY"):
        assert HERMES_VARIABLES[name] == RELEASES, name
    assert HERMES_VARIABLES["HERMES_SAFE_MODE"] == RELEASES[1:]  # 0.16.0 has no safe mode
    assert "HERMES_TELEMETRY_NO_SETUP" not in HERMES_VARIABLES
    # A bundled plugin that runs only when enabled reads these, never Hermes in the sandbox.
    assert "LANGFUSE_SECRET_KEY" not in HERMES_VARIABLES

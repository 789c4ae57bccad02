"""The companion plugins, in-process: what each tells Hermes for the bodies it is meant for."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import yaml

from hermetic.companions import COMPANIONS, RECLASSIFY_MODEL_GONE, companion_folder

ANTHROPIC = {
    "type": "error",
    "error": {"type": "not_found_error", "message": "model: opus-4"},
    "request_id": "req_011CSJdwJdRY4cgapH1mAuMS",
}
OPENROUTER = {"error": {"message": "No endpoints found for deepseek/x:free.", "code": 404}}
OPENAI = {"error": {"message": "The model `x` does not exist", "code": "model_not_found"}}
GONE = {"reason": "model_not_found", "retryable": False, "should_fallback": True}


def load(folder: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(folder.name, folder / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_companion_is_a_directory_plugin_named_as_registered() -> None:
    for name, folder in COMPANIONS.items():
        manifest = yaml.safe_load((folder / "plugin.yaml").read_text("utf-8"))
        assert manifest["name"] == name
        assert (folder / "__init__.py").is_file()


def test_the_reclassifier_registers_hermes_022s_hook() -> None:
    plugin = load(companion_folder(RECLASSIFY_MODEL_GONE))
    registered = []

    class Context:
        def register_hook(self, name: str, callback: object) -> None:
            registered.append((name, callback))

    plugin.register(Context())

    assert [name for name, _ in registered] == ["transform_api_error_classification"]


def test_anthropics_and_openrouters_404s_become_model_not_found() -> None:
    reclassify = load(companion_folder(RECLASSIFY_MODEL_GONE)).reclassify

    assert reclassify(status_code=404, error_body=ANTHROPIC, provider="custom") == GONE
    assert reclassify(status_code=404, error_body=OPENROUTER, error_message="") == GONE
    text = "Error code: 404 - " + json.dumps(OPENROUTER)
    assert reclassify(status_code=404, error_body={}, error_message=text) == GONE


def test_everything_else_is_left_to_hermes() -> None:
    reclassify = load(companion_folder(RECLASSIFY_MODEL_GONE)).reclassify

    assert reclassify(status_code=404, error_body=OPENAI) is None
    assert reclassify(status_code=500, error_body=ANTHROPIC) is None
    assert reclassify(status_code=None, error_body=None, error_message="timeout") is None
    assert reclassify(status_code=404, error_body={"error": "text"}) is None

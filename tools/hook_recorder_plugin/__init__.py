"""A Hermes directory plugin that records what ``api_request_error`` really receives.

Used by tools/record_hook_calls.py to refresh tests/fixtures/hook_calls_hermes_0.19.0.json,
so the plugin's unit tests classify the exact keyword arguments Hermes passes.
"""

import json
import os
import threading

_lock = threading.Lock()


def _record(**kwargs):
    request = kwargs.get("request")
    if isinstance(request, dict):
        # The request body is the whole prompt: keep its shape, not its text.
        kwargs["request"] = {
            "method": request.get("method"),
            "body_keys": sorted(request.get("body") or {}),
        }
    line = json.dumps(kwargs, default=repr, sort_keys=True)
    path = os.path.join(os.environ["HERMES_HOME"], "hook_calls.jsonl")
    with _lock, open(path, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def register(ctx):
    ctx.register_hook("api_request_error", _record)

"""hermetic's hook observer: what Hermes tells plugins about each failed request, recorded.

A Hermes directory plugin, copied into a scenario's Hermes home beside the plugin under test
when a step needs to say what Hermes reported (``hermetic.parts.hook_observer``); one of
hermetic's companion plugins (``hermetic/companions/``). It appends
one JSON line per ``api_request_error`` call to ``$HERMES_HOME/hermetic-observed/hooks.jsonl``
with the classification only (model, provider, protocol, status, reason, retryable, attempt),
never the request or the error text, which may echo a credential.

It cannot change the plugin under test's verdict: it registers this one hook, touches nothing
but its own file, returns nothing, never raises into Hermes and holds its lock only for one
append. Standard library only (it runs inside Hermes).
"""

import json
import os
import threading

FIELDS = (
    "model",
    "provider",
    "api_mode",
    "status_code",
    "reason",
    "retryable",
    "retry_count",
    "max_retries",
)
FOLDER = "hermetic-observed"
FILENAME = "hooks.jsonl"

_lock = threading.Lock()


def _hermetic_observe(**kwargs):
    try:
        line = json.dumps({key: kwargs.get(key) for key in FIELDS}, default=repr)
        folder = os.path.join(os.environ["HERMES_HOME"], FOLDER)
        with _lock:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, FILENAME), "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
    except Exception:  # an observer must never be the reason a run differs
        pass


def register(ctx):
    ctx.register_hook("api_request_error", _hermetic_observe)

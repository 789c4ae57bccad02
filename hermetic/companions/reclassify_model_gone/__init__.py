"""A companion plugin: teaches Hermes that some providers' "not found" means "this model is gone".

Hermes decides whether a failed request means a removed model by the provider's words. OpenAI
says so in words Hermes knows; Anthropic's ``not_found_error`` ("model: <name>") and OpenRouter's
"No endpoints found for <model>" reach a plugin as ``reason="unknown"``, ``retryable=True``, and
are retried. From Hermes 0.22 on, a plugin may answer the hook
``transform_api_error_classification`` before Hermes' own classifier runs: this one answers
``model_not_found`` (not retryable) for those two 404s and nothing for anything else, so every
other failure is classified by Hermes as before.

Standard library only; it never raises into Hermes (an exception in a hook is logged and
ignored by Hermes anyway, and the call is then classified as if the hook had said nothing).
"""

# The 404 bodies this plugin recognises, by the provider's own words.
NOT_FOUND_TYPE = "not_found_error"  # Anthropic: {"type": "error", "error": {"type": ..., ...}}
NO_ENDPOINTS = "No endpoints found"  # OpenRouter: {"error": {"message": "No endpoints found ..."}}


def _error_of(error_body):
    error = error_body.get("error") if isinstance(error_body, dict) else None
    return error if isinstance(error, dict) else {}


def reclassify(status_code=None, error_body=None, error_message="", **_other):
    """Hermes' hook: a verdict for the failed call, or None to leave it to Hermes."""
    if status_code != 404:
        return None
    error = _error_of(error_body)
    message = error.get("message") if isinstance(error.get("message"), str) else ""
    if (
        error.get("type") == NOT_FOUND_TYPE
        or NO_ENDPOINTS in message
        or (not error and NO_ENDPOINTS in (error_message or ""))
    ):
        return {"reason": "model_not_found", "retryable": False, "should_fallback": True}
    return None


def register(ctx):
    ctx.register_hook("transform_api_error_classification", reclassify)

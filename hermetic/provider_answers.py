"""The provider answers the features name in product words, mapped to mock scripts and tuning.

This table is the bridge between the Examples table product people read ("rate limited (429)")
and what the mock provider does. Each answer also says which Hermes settings make its scenario
cost what Hermes needs and no more (e.g. a short request timeout for a hanging provider).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hermetic.errors import HarnessError

# Not a mock script: the provider's port accepts no connection at all.
REFUSED = "connection_refused"


@dataclass(frozen=True)
class ProviderAnswer:
    """One way the provider answers: a mock script (or REFUSED) and the tuning it needs."""

    script: Any
    tuning: dict[str, Any] = field(default_factory=dict)

    @property
    def refuses_connections(self) -> bool:
        return self.script == REFUSED


ANSWERS: dict[str, ProviderAnswer] = {
    "model does not exist (404)": ProviderAnswer("model_not_found"),
    "not found, model not named (404)": ProviderAnswer("not_found"),
    "model gone (410)": ProviderAnswer("model_gone"),
    "bad request (400)": ProviderAnswer("bad_request"),
    "wrong API key (401)": ProviderAnswer("unauthorized"),
    "forbidden (403)": ProviderAnswer("forbidden"),
    "rate limited (429)": ProviderAnswer("rate_limit"),
    "internal server error (500)": ProviderAnswer("server_error"),
    "bad gateway (502)": ProviderAnswer("bad_gateway"),
    "overloaded (503)": ProviderAnswer("overloaded"),
    "connection refused": ProviderAnswer(REFUSED),
    # Hermes gives up after request_timeout_seconds; a 1 s timeout against a 5 s hang keeps the
    # row to one timeout per attempt instead of three.
    "no answer in time": ProviderAnswer(
        {"answer": "hang", "seconds": 5}, tuning={"request_timeout_seconds": 1}
    ),
    "malformed JSON body": ProviderAnswer("malformed_json"),
    "empty choices list": ProviderAnswer("empty_choices"),
    "a normal answer": ProviderAnswer("success"),
}


def provider_answer(phrase: str) -> ProviderAnswer:
    """Look up an answer by its feature-file phrase; an unknown phrase lists the known ones."""
    try:
        return ANSWERS[phrase]
    except KeyError:
        known = "\n  ".join(ANSWERS)
        raise HarnessError(
            f"unknown provider answer {phrase!r}; known answers:\n  {known}"
        ) from None


def removed_model_echoing(model: str, secret: str) -> dict[str, Any]:
    """A "model does not exist" 404 whose message also echoes a credential, as some gateways'
    errors do (the request's key, a bearer token and a key in a URL)."""
    message = (
        f"The model `{model}` does not exist or you do not have access to it. "
        f"Request: Authorization: Bearer {secret}; "
        f"retry at https://provider.invalid/v1/chat?api_key={secret} with key {secret}."
    )
    return {
        "answer": "model_not_found",
        "body": {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": "model",
                "code": "model_not_found",
            }
        },
    }

"""The provider answers the features name in product words: each phrase's mock script and tuning.

This table is the bridge between the Examples table product people read ("rate limited (429)")
and what the mock provider does (a script spec, see :mod:`hermetic.mock.script`). Each phrase
also says which Hermes settings make its scenario cost what Hermes needs and no more (e.g. a
short request timeout for a hanging provider).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hermetic.errors import HarnessError

# Not a script spec: the provider's port accepts no connection at all.
REFUSED = "connection_refused"


@dataclass(frozen=True)
class AnswerPhrase:
    """What one answer phrase means: the mock's script spec (or REFUSED) and the tuning it
    needs."""

    spec: Any
    tuning: dict[str, Any] = field(default_factory=dict)

    @property
    def refuses_connections(self) -> bool:
        return self.spec == REFUSED


PHRASES: dict[str, AnswerPhrase] = {
    "model does not exist (404)": AnswerPhrase("model_not_found"),
    "not found, model not named (404)": AnswerPhrase("not_found"),
    "model gone (410)": AnswerPhrase("model_gone"),
    "bad request (400)": AnswerPhrase("bad_request"),
    "wrong API key (401)": AnswerPhrase("unauthorized"),
    "forbidden (403)": AnswerPhrase("forbidden"),
    "rate limited (429)": AnswerPhrase("rate_limit"),
    "internal server error (500)": AnswerPhrase("server_error"),
    "bad gateway (502)": AnswerPhrase("bad_gateway"),
    "overloaded (503)": AnswerPhrase("overloaded"),
    "connection refused": AnswerPhrase(REFUSED),
    # Hermes gives up after request_timeout_seconds; a 1 s timeout against a 5 s hang keeps the
    # row to one timeout per attempt instead of three.
    "no answer in time": AnswerPhrase(
        {"answer": "hang", "seconds": 5}, tuning={"request_timeout_seconds": 1}
    ),
    "malformed JSON body": AnswerPhrase("malformed_json"),
    "empty choices list": AnswerPhrase("empty_choices"),
    "a normal answer": AnswerPhrase("success"),
}


def answer_phrase(phrase: str) -> AnswerPhrase:
    """Look up a feature file's answer phrase; an unknown phrase lists the known ones."""
    try:
        return PHRASES[phrase]
    except KeyError:
        known = "\n  ".join(PHRASES)
        raise HarnessError(
            f"unknown provider answer phrase {phrase!r}; known phrases:\n  {known}"
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

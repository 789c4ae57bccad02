"""A mock Nous Portal on loopback: device-code login, token refresh, account and model advice.

Hermes logs in to Nous Portal with an OAuth device-code flow and later refreshes its token there;
pointing ``hermes auth add nous --portal-url`` (and ``auth.json``'s ``portal_base_url``) at this
server runs Hermes' real login and refresh code with no account and no network.

* Tokens are unsigned JWTs (``alg: none``) carrying what Hermes checks: ``scope`` with
  ``inference:invoke`` and a numeric ``exp``. Their lifetime is chosen by the test
  (:attr:`MockPortal.token_lifetime`), so "a token about to expire" is one assignment away.
* Refresh tokens rotate like the real portal's: each is good for one refresh. A test can make
  every refresh fail with ``invalid_grant`` (:meth:`MockPortal.refuse_refresh`).
* Every call is journaled as a :class:`PortalEntry` (the bearer redacted, tokens named by their
  number: ``at-2``, ``rt-1``), and a route nobody scripted is answered *loudly* -- HTTP 418 with
  header ``X-Hermetic-Mock: unmatched`` -- as the mock provider does.

Use it like :class:`~hermetic.mock.provider_server.MockProvider` (both are a
:class:`~hermetic.mock.server.LoopbackServer` keeping a :class:`~hermetic.mock.journal.Journal`)::

    with MockPortal(token_lifetime=3600) as portal:
        ...  # hermes auth add nous --type oauth --no-browser --portal-url {portal.base_url}
        portal.refuse_refresh()
        ...
        assert portal.count(REFRESH) == 1
"""

from __future__ import annotations

import base64
import copy
import json
import secrets
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from hermetic.mock.journal import Journal, JournalEntry
from hermetic.mock.routes import MARKER_HEADER, UNMATCHED_STATUS
from hermetic.mock.server import LoopbackServer
from hermetic.mock.state import UNMATCHED

__all__ = [
    "ACCOUNT",
    "DEVICE_CODE",
    "DEVICE_CODE_GRANT",
    "INFERENCE_SCOPE",
    "LOGIN",
    "RECOMMENDED_MODELS",
    "REFRESH",
    "REFRESH_GRANT",
    "ROUTES",
    "UNMATCHED",
    "IssuedTokens",
    "MockPortal",
    "PortalEntry",
    "token_claims",
    "unsigned_jwt",
]

# What Hermes requires of an inference token (hermes_cli/auth.py, NOUS_INFERENCE_INVOKE_SCOPE).
INFERENCE_SCOPE = "inference:invoke"
DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
REFRESH_GRANT = "refresh_token"
# Hermes sends the refresh token in this header, not in the form.
REFRESH_TOKEN_HEADER = "x-nous-refresh-token"

# Journal kinds: one per portal call Hermes makes.
DEVICE_CODE = "device_code"  # POST /api/oauth/device/code
LOGIN = "login"  # POST /api/oauth/token, device-code grant
REFRESH = "refresh"  # POST /api/oauth/token, refresh grant
ACCOUNT = "account"  # GET /api/oauth/account
RECOMMENDED_MODELS = "recommended_models"  # GET /api/nous/recommended-models

ROUTES = {
    "POST /api/oauth/device/code": "start a device-code login (approved at once)",
    "POST /api/oauth/token": "device-code grant (login) or refresh_token grant (rotation)",
    "GET /api/oauth/account": "the account payload, for a bearer this portal issued",
    "GET /api/nous/recommended-models": "the recommended-models payload",
}

DEFAULT_TOKEN_LIFETIME = 3600
# Longer than any scenario; Hermes polls the token endpoint until then.
_DEVICE_CODE_LIFETIME = 600
_CLIENT_ID = "hermes-cli"

DEFAULT_ACCOUNT: dict[str, Any] = {
    "user": {"id": "user-hermetic", "email": "hermetic@example.invalid"},
    "organisation": {"id": "org-hermetic", "slug": "hermetic", "name": "Hermetic"},
    # A paying account: a free tier would make Hermes gate models and advice.
    "paid_service_access": {"allowed": True, "paid_access": True, "has_active_subscription": True},
}
DEFAULT_RECOMMENDED_MODELS: dict[str, Any] = {
    "paidRecommendedModels": [],
    "freeRecommendedModels": [],
    "paidRecommendedCompactionModel": None,
    "paidRecommendedVisionModel": None,
    "freeRecommendedCompactionModel": None,
    "freeRecommendedVisionModel": None,
}


def unsigned_jwt(claims: Mapping[str, Any]) -> str:
    """A JWT with ``alg: none`` and an empty signature: Hermes decodes it but never verifies it."""
    header = {"alg": "none", "typ": "JWT"}
    return f"{_b64url(header)}.{_b64url(dict(claims))}."


def token_claims(token: str) -> dict[str, Any]:
    """The payload of a JWT (unverified); ValueError if ``token`` is not one."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a JWT: expected three dot-separated parts")
    padded = parts[1] + "=" * (-len(parts[1]) % 4)
    claims = json.loads(base64.urlsafe_b64decode(padded))
    if not isinstance(claims, dict):
        raise ValueError("not a JWT: the payload is not a JSON object")
    return claims


def _b64url(value: Mapping[str, Any]) -> str:
    raw = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class IssuedTokens:
    """One access/refresh token pair the portal minted (number ``n``: ``at-n`` / ``rt-n``)."""

    number: int
    access_token: str
    refresh_token: str
    expires_at: int  # epoch seconds, the JWT's exp
    lifetime: int  # seconds, what expires_in said
    scope: str

    def response(self) -> dict[str, Any]:
        """The token endpoint's JSON answer for this pair."""
        return {
            "access_token": self.access_token,
            "refresh_token": self.refresh_token,
            "token_type": "Bearer",
            "expires_in": self.lifetime,
            "scope": self.scope,
        }


@dataclass(frozen=True)
class PortalEntry(JournalEntry):
    """One request the portal received."""

    kind: str  # DEVICE_CODE, LOGIN, REFRESH, ACCOUNT, RECOMMENDED_MODELS or UNMATCHED
    token: str | None = None  # the token presented: "rt-3" (refresh), "at-2" (bearer), "?"
    issued: int | None = None  # the number of the token pair this call minted
    error: str | None = None  # the OAuth error sent, e.g. "invalid_grant"

    def summary(self) -> str:
        """One human-readable line, for failure reports."""
        token = f" token={self.token}" if self.token else ""
        issued = f" issued at-{self.issued}/rt-{self.issued}" if self.issued else ""
        error = f" [{self.error}]" if self.error else ""
        flag = "" if self.matched else " !! UNMATCHED"
        return (
            f"#{self.seq} {self.time} {self.method} {self.path} {self.kind}{token} "
            f"-> {self.status}{issued}{error}{flag}"
        )


class MockPortal(LoopbackServer):
    """A Nous Portal whose logins always succeed at once and whose tokens a test controls.

    Runs on its own thread and event loop; every method is safe to call from any thread while
    it serves. Scripting (lifetime, refusal, payloads) applies to the calls that follow.
    """

    label = "mock portal"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        token_lifetime: int = DEFAULT_TOKEN_LIFETIME,
        account: Mapping[str, Any] | None = None,
        recommended_models: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(host, port)
        self._journal: Journal[PortalEntry] = Journal(PortalEntry, self.label)
        # Guards everything below: handlers run on the server thread, scripting on the test's.
        self._lock = threading.Lock()
        self._token_lifetime = _lifetime(token_lifetime)
        self._refusal: tuple[str, str] | None = None
        self._account = copy.deepcopy(dict(DEFAULT_ACCOUNT if account is None else account))
        self._recommended = copy.deepcopy(
            dict(DEFAULT_RECOMMENDED_MODELS if recommended_models is None else recommended_models)
        )
        self._issued: list[IssuedTokens] = []
        self._by_access: dict[str, IssuedTokens] = {}
        self._by_refresh: dict[str, IssuedTokens] = {}
        self._used_refresh: set[str] = set()
        self._device_codes: set[str] = set()

    # -- scripting -----------------------------------------------------------

    @property
    def token_lifetime(self) -> int:
        """Seconds from minting to ``exp`` for the tokens minted from now on."""
        with self._lock:
            return self._token_lifetime

    @token_lifetime.setter
    def token_lifetime(self, seconds: int) -> None:
        checked = _lifetime(seconds)
        with self._lock:
            self._token_lifetime = checked

    def refuse_refresh(
        self,
        error: str = "invalid_grant",
        description: str = "The refresh token is invalid or has been revoked.",
    ) -> None:
        """Answer every refresh with HTTP 400 and this OAuth error, until :meth:`allow_refresh`."""
        with self._lock:
            self._refusal = (error, description)

    def allow_refresh(self) -> None:
        """Rotate tokens on refresh again (the default)."""
        with self._lock:
            self._refusal = None

    def set_account(self, payload: Mapping[str, Any]) -> None:
        """What ``GET /api/oauth/account`` answers from now on."""
        with self._lock:
            self._account = copy.deepcopy(dict(payload))

    def set_recommended_models(self, payload: Mapping[str, Any]) -> None:
        """What ``GET /api/nous/recommended-models`` answers from now on."""
        with self._lock:
            self._recommended = copy.deepcopy(dict(payload))

    def mint(self, lifetime: int | None = None) -> IssuedTokens:
        """Issue a token pair as a login would, without a login: for an ``auth.json`` written
        by hand. ``lifetime`` defaults to :attr:`token_lifetime`; not journaled."""
        checked = None if lifetime is None else _lifetime(lifetime)
        with self._lock:
            return self._mint_locked(self._token_lifetime if checked is None else checked)

    # -- what happened --------------------------------------------------------

    def journal(self, kind: str | None = None) -> list[PortalEntry]:
        """The calls received, oldest first (only those of ``kind`` if given)."""
        return self._journal.entries(None if kind is None else (lambda c: c.kind == kind))

    def count(self, kind: str) -> int:
        """How many calls of ``kind`` (e.g. :data:`REFRESH`) the portal received."""
        return len(self.journal(kind))

    def counts(self) -> dict[str, int]:
        """Calls per kind, plus ``total``."""
        calls = self.journal()
        return {"total": len(calls), **dict(sorted(Counter(c.kind for c in calls).items()))}

    def unmatched(self) -> list[PortalEntry]:
        return self.journal(UNMATCHED)

    def issued(self) -> list[IssuedTokens]:
        """Every token pair minted (logins, refreshes, :meth:`mint`), oldest first."""
        with self._lock:
            return list(self._issued)

    def journal_text(self, limit: int = 50) -> str:
        """The last ``limit`` calls, one line each, for failure reports."""
        return self._journal.text(limit)

    def reset(self) -> None:
        """Forget the calls received (tokens already issued stay valid)."""
        self._journal.clear()

    # -- HTTP ------------------------------------------------------------------

    def _application(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/api/oauth/device/code", self._device_code)
        app.router.add_post("/api/oauth/token", self._token)
        app.router.add_get("/api/oauth/account", self._account_info)
        app.router.add_get("/api/nous/recommended-models", self._recommended_models)
        # Registered last so every real route wins; also catches wrong methods.
        app.router.add_route("*", "/{tail:.*}", self._unmatched)
        return app

    async def _device_code(self, request: web.Request) -> web.Response:
        device_code = secrets.token_urlsafe(16)
        user_code = secrets.token_hex(4).upper()
        with self._lock:
            self._device_codes.add(device_code)
        self._record(request, DEVICE_CODE, 200)
        return web.json_response(
            {
                "device_code": device_code,
                "user_code": user_code,
                "verification_uri": f"{self.base_url}/device",
                "verification_uri_complete": f"{self.base_url}/device?user_code={user_code}",
                "expires_in": _DEVICE_CODE_LIFETIME,
                "interval": 1,
            }
        )

    async def _token(self, request: web.Request) -> web.Response:
        form = await request.post()
        grant = form.get("grant_type")
        if grant == DEVICE_CODE_GRANT:
            return self._login(request, str(form.get("device_code", "")))
        if grant == REFRESH_GRANT:
            presented = request.headers.get(REFRESH_TOKEN_HEADER) or str(
                form.get("refresh_token", "")
            )
            return self._refresh(request, presented)
        return self._unmatched_response(request, f"grant_type={grant!r} is not scripted")

    def _login(self, request: web.Request, device_code: str) -> web.Response:
        with self._lock:
            approved = device_code in self._device_codes
            self._device_codes.discard(device_code)
            issued = self._mint_locked(self._token_lifetime) if approved else None
        if issued is None:
            return self._oauth_error(request, LOGIN, "invalid_grant", "Unknown device code.")
        self._record(request, LOGIN, 200, issued=issued.number)
        return web.json_response(issued.response())

    def _refresh(self, request: web.Request, presented: str) -> web.Response:
        with self._lock:
            known = self._by_refresh.get(presented)
            if self._refusal is not None:
                refusal: tuple[str, str] | None = self._refusal
            elif known is None:
                refusal = ("invalid_grant", "Unknown refresh token.")
            elif presented in self._used_refresh:
                # Like the real portal's, a refresh token is good for one refresh.
                refusal = ("invalid_grant", "The refresh token has already been used.")
            else:
                refusal = None
                self._used_refresh.add(presented)
                issued = self._mint_locked(self._token_lifetime)
        label = f"rt-{known.number}" if known else "?"
        if refusal is not None:
            return self._oauth_error(request, REFRESH, *refusal, token=label)
        self._record(request, REFRESH, 200, token=label, issued=issued.number)
        return web.json_response(issued.response())

    async def _account_info(self, request: web.Request) -> web.Response:
        label = self._bearer_label(request)
        if label == "?":
            self._record(request, ACCOUNT, 401, token=label, error="invalid_token")
            return web.json_response(
                {"error": "invalid_token", "error_description": "Unknown access token."},
                status=401,
            )
        with self._lock:
            payload = copy.deepcopy(self._account)
        self._record(request, ACCOUNT, 200, token=label)
        return web.json_response(payload)

    async def _recommended_models(self, request: web.Request) -> web.Response:
        with self._lock:
            payload = copy.deepcopy(self._recommended)
        self._record(request, RECOMMENDED_MODELS, 200)
        return web.json_response(payload)

    async def _unmatched(self, request: web.Request) -> web.Response:
        return self._unmatched_response(request, "no such portal route")

    def _unmatched_response(self, request: web.Request, reason: str) -> web.Response:
        detail = f"{request.method} {request.path}: {reason}; known routes: {list(ROUTES)}"
        self._record(request, UNMATCHED, UNMATCHED_STATUS)
        return web.json_response(
            {"hermetic_mock_error": "unmatched", "detail": detail},
            status=UNMATCHED_STATUS,
            headers={MARKER_HEADER: "unmatched"},
        )

    def _oauth_error(
        self,
        request: web.Request,
        kind: str,
        error: str,
        description: str,
        *,
        token: str | None = None,
    ) -> web.Response:
        self._record(request, kind, 400, token=token, error=error)
        return web.json_response({"error": error, "error_description": description}, status=400)

    def _bearer_label(self, request: web.Request) -> str:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        with self._lock:
            issued = self._by_access.get(token.strip()) if scheme.lower() == "bearer" else None
        return f"at-{issued.number}" if issued else "?"

    def _record(
        self,
        request: web.Request,
        kind: str,
        status: int,
        *,
        token: str | None = None,
        issued: int | None = None,
        error: str | None = None,
    ) -> None:
        self._journal.append(
            method=request.method,
            path=request.path,
            headers=request.headers,
            matched=kind != UNMATCHED,
            status=status,
            kind=kind,
            token=token,
            issued=issued,
            error=error,
        )

    def _mint_locked(self, lifetime: int) -> IssuedTokens:
        number = len(self._issued) + 1
        now = int(time.time())
        claims = {
            "iss": self.base_url if self._port is not None else "hermetic-mock-portal",
            "sub": "user-hermetic",
            "client_id": _CLIENT_ID,
            "scope": INFERENCE_SCOPE,
            "iat": now,
            "exp": now + lifetime,
            "jti": f"at-{number}",
            "paid_access": True,
        }
        issued = IssuedTokens(
            number=number,
            access_token=unsigned_jwt(claims),
            refresh_token=f"hermetic-rt-{number}-{secrets.token_hex(8)}",
            expires_at=now + lifetime,
            lifetime=lifetime,
            scope=INFERENCE_SCOPE,
        )
        self._issued.append(issued)
        self._by_access[issued.access_token] = issued
        self._by_refresh[issued.refresh_token] = issued
        return issued


def _lifetime(seconds: int) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        raise TypeError(f"token lifetime must be whole seconds, got {seconds!r}")
    # Zero or negative is allowed: an already expired token is a scenario too.
    return seconds

"""Providers that need a login (Nous Portal, qwen-oauth, openai-codex), as the world's part
(``world.use(LoginProviders)``): no account, no network, Hermes' own login code.

Nous Portal is logged into the real way: ``hermes auth add nous`` against a mock portal
(:class:`~hermetic.mock.MockPortal`) on loopback, which also renews (or refuses to renew) the
login later. Inference goes to the scenario's mock provider because every ``hermes`` process of
the sandbox gets the provider's override variable; without it Hermes would send the request to
the production host, and the loopback guard must catch that (the fail-closed scenario drops it
on purpose). ``qwen-oauth`` and ``openai-codex`` have no login Hermes can run offline; their
credentials are written where Hermes reads them, tokens that never look expired, so their
hard-coded refresh hosts are never tried. See docs/background/login-providers.md.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermetic.diagnostics.evidence import Evidence
from hermetic.errors import HarnessError
from hermetic.isolation.checks import NETWORK
from hermetic.mock import MockPortal, PortalEntry, redact_authorization
from hermetic.mock.portal import REFRESH, unsigned_jwt

if TYPE_CHECKING:
    from hermetic.mock import ProviderEntry
    from hermetic.world.world import World

NOUS = "nous"
QWEN = "qwen-oauth"
CODEX = "openai-codex"
PROVIDERS = (NOUS, QWEN, CODEX)

#: The only way to move each provider's inference in 0.19.0 (cron ignores HERMES_CODEX_BASE_URL;
#: codex takes its URL from the credential instead).
INFERENCE_OVERRIDES: Mapping[str, str] = {
    NOUS: "NOUS_INFERENCE_BASE_URL",
    QWEN: "HERMES_QWEN_BASE_URL",
}

#: Where Hermes finds Nous Portal; a trusted override that wins over the login's stored URL, so
#: no code path of Hermes can reach the production portal from a sandbox.
PORTAL_OVERRIDE = "HERMES_PORTAL_BASE_URL"

#: A lifetime Hermes renews before using the token: under the 1800 s it wants left on a pooled
#: Nous key, over the 120 s that makes the login itself refuse a token as expiring.
ABOUT_TO_EXPIRE_SECONDS = 600
#: A lifetime Hermes uses as it is (and what a renewal gets).
HEALTHY_SECONDS = 3600

#: Where Hermes keeps logins, in HERMES_HOME.
AUTH_FILE = "auth.json"
#: Where qwen-oauth's login lives, in the (decoy) user home.
QWEN_CREDENTIALS = Path(".qwen") / "oauth_creds.json"
#: Hermes' copy of the models.dev registry, in HERMES_HOME: fresh, it stops a lookup online.
MODELS_DEV_CACHE = "models_dev_cache.json"

# Keys whose values are credentials, wherever they appear in a login file.
_SECRET_KEYS = frozenset({"access_token", "refresh_token", "id_token", "agent_key", "api_key"})


def login_command(portal_url: str) -> tuple[str, ...]:
    """``hermes auth add nous`` as an operator runs it on a machine without a browser."""
    return ("auth", "add", NOUS, "--type", "oauth", "--no-browser", "--portal-url", portal_url)


def qwen_credentials(now: float) -> dict[str, Any]:
    """qwen-oauth's token file: a token valid for a day (its refresh host is not loopback)."""
    return {
        "access_token": "qwen-hermetic-access",
        "refresh_token": "qwen-hermetic-refresh",
        "token_type": "Bearer",
        "resource_url": "portal.qwen.ai",
        "expiry_date": int((now + 86400) * 1000),  # milliseconds
    }


def codex_auth(base_url: str) -> dict[str, Any]:
    """auth.json with one hand-added openai-codex credential whose requests go to ``base_url``.

    The token is a JWT without ``exp``: Hermes never thinks it expiring, so it never tries the
    hard-coded refresh host.
    """
    entry = {
        "id": "hermetic",
        "label": "hermetic mock",
        "auth_type": "oauth",
        "priority": 0,
        "source": "manual",
        "access_token": unsigned_jwt({"sub": "user-hermetic", "scope": "openid"}),
        "refresh_token": "codex-hermetic-refresh",
        "base_url": base_url,
    }
    return {"version": 1, "providers": {}, "credential_pool": {CODEX: [entry]}}


def models_dev_cache() -> dict[str, Any]:
    """A non-empty models.dev registry: Hermes trusts it for an hour instead of fetching one."""
    return {"hermetic": {"id": "hermetic", "name": "hermetic", "models": {}}}


def redacted(value: Any) -> Any:
    """A login file's content with every credential shortened to its first characters."""
    if isinstance(value, dict):
        return {
            key: (
                redact_authorization(item)
                if isinstance(item, str) and key.lower() in _SECRET_KEYS
                else redacted(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redacted(item) for item in value]
    return value


class LoginProviders:
    """The login a scenario's Hermes uses, the mock portal behind it, and what happened there."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.provider: str | None = None
        self._portal: MockPortal | None = None
        # The portal calls up to this journal number were the login itself, not the scenario.
        self.login_calls = 0
        self._inference_override = True

    # -- the portal -------------------------------------------------------------------------
    @property
    def portal(self) -> MockPortal:
        """The mock Nous Portal, started on first use and stopped when the scenario ends."""
        if self._portal is None:
            self._portal = MockPortal().start()
            self.world.add_cleanup(self._portal.stop)
        return self._portal

    # -- arranging --------------------------------------------------------------------------
    def use(self, provider: str) -> None:
        """Make ``provider`` Hermes' provider, its inference on the scenario's mock provider."""
        if provider not in PROVIDERS:
            raise HarnessError(f"unknown login provider {provider!r}; known: {PROVIDERS}")
        world = self.world
        if world.scheduler.job_ids:
            # A job remembers the provider it was created under, and Hermes skips it if that
            # changes: the login comes first.
            raise HarnessError("log in before scheduling the job (it records the provider)")
        self.provider = provider
        world.config.provider = provider
        world.config.write()
        variable = INFERENCE_OVERRIDES.get(provider)
        if variable is not None and self._inference_override:
            world.sandbox.extra_env[variable] = world.provider.api_base
        if provider == NOUS:
            world.sandbox.extra_env[PORTAL_OVERRIDE] = self.portal.base_url
        self._write_json(world.sandbox.hermes_home / MODELS_DEV_CACHE, models_dev_cache())

    def log_in(self, provider: str) -> None:
        """Hermes logged into ``provider``, as that provider's login works without a network."""
        if provider == NOUS:
            self.log_in_nous()
        elif provider == QWEN:
            self.use(QWEN)
            credentials = qwen_credentials(time.time())
            self._write_json(self.world.sandbox.home / QWEN_CREDENTIALS, credentials)
        elif provider == CODEX:
            self.use(CODEX)
            self._write_json(self.auth_path, codex_auth(self.world.provider.api_base))
        else:
            raise HarnessError(f"unknown login provider {provider!r}; known: {PROVIDERS}")

    def log_in_nous(self, token_lifetime: int = HEALTHY_SECONDS) -> None:
        """Run Hermes' own Nous Portal login against the mock portal (no browser, no input);
        the token it gets lives ``token_lifetime`` seconds, a renewed one an hour."""
        self.use(NOUS)
        world, portal = self.world, self.portal
        portal.token_lifetime = token_lifetime
        result = world.hermes.run_checked(*login_command(portal.base_url))
        world.after_run(result, loads_plugins=False)
        portal.token_lifetime = HEALTHY_SECONDS
        world.check(
            NOUS in self.auth().get("providers", {}),
            f"{result.describe()} but {self.auth_path} holds no Nous Portal login",
        )
        journal = portal.journal()
        self.login_calls = journal[-1].seq if journal else 0

    def refuse_renewal(self) -> None:
        """The portal answers every renewal with ``invalid_grant`` (a revoked login)."""
        self.portal.refuse_refresh()

    def drop_inference_override(self) -> None:
        """Leave the sandbox without its inference override, as a broken harness would: the
        scenario then reads the loopback guard's findings itself.

        Before the login: a login made with the override keeps its address in the stored
        credential, which Hermes still uses when a later process lacks the variable.
        """
        if self.provider is not None:
            raise HarnessError("drop the inference override before Hermes logs in")
        self._inference_override = False
        for variable in INFERENCE_OVERRIDES.values():
            self.world.sandbox.extra_env.pop(variable, None)
        self.world.checks.expect(NETWORK)

    # -- what happened ------------------------------------------------------------------------
    def portal_calls(self, kind: str | None = None) -> list[PortalEntry]:
        """The portal calls since the login (all of them if Hermes never logged in)."""
        if self._portal is None:
            return []
        return [call for call in self._portal.journal(kind) if call.seq > self.login_calls]

    def renewals(self) -> list[PortalEntry]:
        return self.portal_calls(REFRESH)

    def renewed_before(self, request: ProviderEntry) -> bool:
        """Hermes renewed its login at the portal before it sent ``request``."""
        return any(call.time <= request.time for call in self.renewals())

    @property
    def auth_path(self) -> Path:
        return self.world.sandbox.hermes_home / AUTH_FILE

    def auth(self) -> dict[str, Any]:
        """Hermes' login file as it is now (empty if there is none)."""
        try:
            data = json.loads(self.auth_path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        return data if isinstance(data, dict) else {}

    def evidence(self) -> list[Evidence]:
        items = [Evidence(f"{AUTH_FILE}, credentials redacted", self._describe_auth, AUTH_FILE)]
        if self._portal is not None:
            portal = self._portal
            items.append(
                Evidence("mock portal request journal", portal.journal_text, "portal-journal.txt")
            )
        return items

    # -- helpers ------------------------------------------------------------------------------
    def _describe_auth(self) -> str | None:
        if not self.auth_path.exists():
            return None
        try:
            return json.dumps(redacted(self.auth()), indent=2)
        except ValueError as exc:
            return f"(not JSON: {exc})"

    @staticmethod
    def _write_json(path: Path, content: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content, indent=2), "utf-8")

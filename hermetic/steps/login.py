"""Steps about logging Hermes into a provider that needs a login (Nous Portal, OAuth providers)."""

from behave import given, then

from hermetic.parts.login import ABOUT_TO_EXPIRE_SECONDS, NOUS, LoginProviders


@given("Hermes uses Nous Portal but has never logged in")
def step_nous_never_logged_in(context):
    """Nous Portal is Hermes' provider, its inference and portal on loopback, and no login."""
    context.world.use(LoginProviders).use(NOUS)


@given("Hermes is logged into Nous Portal")
def step_logged_into_nous(context):
    """Hermes' own ``hermes auth add nous`` login, against the local stand-in for the portal."""
    context.world.use(LoginProviders).log_in_nous()


@given("Hermes is logged into Nous Portal with a login about to expire")
def step_logged_into_nous_expiring(context):
    """The real login, with a token short-lived enough that Hermes renews it before use."""
    context.world.use(LoginProviders).log_in_nous(token_lifetime=ABOUT_TO_EXPIRE_SECONDS)


@given('Hermes is logged into the provider "{provider}"')
def step_logged_into_provider(context, provider):
    """Hermes holds a login for the provider (nous, qwen-oauth or openai-codex)."""
    context.world.use(LoginProviders).log_in(provider)


@given("the portal refuses to renew the login")
def step_portal_refuses_renewal(context):
    """Every renewal of the login is refused by the portal, as for a revoked login."""
    context.world.use(LoginProviders).refuse_renewal()


@given("the sandbox leaves Nous inference pointed at the real service")
def step_inference_not_redirected(context):
    """The sandbox forgets to send Nous inference to the local provider (a broken harness)."""
    context.world.use(LoginProviders).drop_inference_override()


@then("Hermes renewed its login at the portal once, before asking the provider")
def step_renewed_before_request(context):
    """Exactly one successful renewal at the portal, earlier than the first model request."""
    world = context.world
    login = world.use(LoginProviders)
    _check_one_renewal(world, login)
    requests = world.provider.chat_requests()
    world.check(requests, "expected a model request after the renewal; the provider got none")
    world.check(
        login.renewed_before(requests[0]),
        f"expected the renewal before the first model request ({requests[0].summary()}); "
        f"portal calls since the login:\n" + _describe(login.portal_calls()),
    )


@then("Hermes renewed its login at the portal once")
def step_renewed_once(context):
    """Exactly one successful renewal of the login at the portal since Hermes logged in."""
    world = context.world
    _check_one_renewal(world, world.use(LoginProviders))


@then("the portal received no request")
def step_portal_silent(context):
    """The local stand-in for Nous Portal was never called (nor the real one: see the guard)."""
    world = context.world
    calls = world.use(LoginProviders).portal_calls()
    world.check(not calls, "expected no call at the portal, it received:\n" + _describe(calls))


def _check_one_renewal(world, login):
    renewals = login.renewals()
    world.check(
        [call.status for call in renewals] == [200],
        "expected exactly one successful renewal at the portal; calls since the login:\n"
        + _describe(login.portal_calls()),
    )


def _describe(calls):
    return "\n".join(f"  {call.summary()}" for call in calls) or "  (none)"

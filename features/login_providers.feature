@promise.login-providers
Feature: Providers that need a login raise the same alerts, with no account and no network
  Most people who run Hermes do not bring an API key: they log into Nous Portal, and Hermes keeps
  that login fresh on its own. A model those users depend on can disappear just like on any other
  provider, so the alert must work for them too. The first version of this suite could not show
  that at all: without a real account every job stopped at "Hermes is not logged into Nous
  Portal", which is exactly where the original work was blocked.

  These scenarios log Hermes in the way an operator does, with Hermes' own login command, against
  a local stand-in for the portal, and send its requests to the local stand-in for the provider.
  Hermes renews a login that is about to expire, or that the provider rejects, at the portal
  first; the alert decision is then made on the provider's final answer. If the sandbox ever
  failed to keep such a provider's requests on this machine, the run must be stopped and say
  where they were going.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Rule: Without a login, the job fails loudly and nothing is sent anywhere

    Scenario: A job on Nous Portal fails with Hermes' own message when nobody logged in
      Given Hermes uses Nous Portal but has never logged in
      And the provider no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the job is marked as failed with Hermes' message "Hermes is not logged into Nous Portal"
      And the provider received no request
      And the portal received no request
      And no model-unavailable alert is recorded

  Rule: Logged in, a removed model is an alert naming the provider

    Scenario: A model removed from Nous Portal raises an alert naming provider "nous"
      Given Hermes is logged into Nous Portal
      And the provider no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then exactly one model-unavailable alert is recorded
      And the alert names the model "gone-model" from provider "nous" with error code 404
      And the alert for "gone-model" carries the provider's message

    Scenario Outline: A model removed from <provider> raises an alert naming it
      Given Hermes is logged into the provider "<provider>"
      And the provider no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then exactly one model-unavailable alert is recorded
      And the alert names the model "gone-model" from provider "<provider>" with error code 404
      And the alert for "gone-model" carries the provider's message

      Examples: Other providers that need a login
        | provider     |
        | qwen-oauth   |
        | openai-codex |

  Rule: Hermes renews the login at the portal, and the provider's final answer decides the alert

    Scenario: A login about to expire is renewed before the request, and the alert is recorded
      Given Hermes is logged into Nous Portal with a login about to expire
      And the provider no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then Hermes renewed its login at the portal once, before asking the provider
      And the alert names the model "gone-model" from provider "nous" with error code 404

    Scenario Outline: A login the provider rejects is renewed and the request retried: <final answer>
      Given Hermes is logged into Nous Portal
      And the provider rejects the login once, then answers the model "scheduled-model" with "<final answer>"
      And a scheduled job uses the model "scheduled-model"
      When the scheduler runs once
      Then Hermes renewed its login at the portal once
      And the provider received 2 requests for "scheduled-model"
      And the alert recorded for "scheduled-model" is "<alert recorded>" with error code "<error code>"
      And the job is marked as <job outcome>

      Examples: The model is gone, or it answers after all
        | final answer                | alert recorded | error code | job outcome |
        | model does not exist (404)  | yes            | 404        | failed      |
        | a normal answer             | no             | -          | successful  |

      @promise.exhausted-retries
      Examples: A final 5xx is an alert, as the failure table says
        | final answer                | alert recorded | error code | job outcome |
        | internal server error (500) | yes            | 500        | failed      |

      @promise.quiet-on-transient
      Examples: A final rate limit is none, as the failure table says
        | final answer                | alert recorded | error code | job outcome |
        | rate limited (429)          | no             | -          | failed      |

    Scenario: A login the portal refuses to renew fails the job with Hermes' message
      Given Hermes is logged into Nous Portal with a login about to expire
      And the portal refuses to renew the login
      And the provider no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the job is marked as failed with Hermes' message "No access token found for Nous Portal login"
      And the provider received no request
      And no model-unavailable alert is recorded

  Rule: A sandbox that does not keep Nous inference on this machine is stopped, not trusted

    @netns
    Scenario: Requests meant for the real Nous inference service are refused and named
      Given the sandbox leaves Nous inference pointed at the real service
      And Hermes is logged into Nous Portal
      And the provider no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the run is reported for trying to reach "inference-api.nousresearch.com"
      And nothing left the machine
      And the provider received no request
      And no model-unavailable alert is recorded

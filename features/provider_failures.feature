@failure-table
Feature: Every way a provider can fail leads to a deliberate alert decision
  A provider can fail in many ways, and only some of them mean "this model is no longer
  available". An alert on every rate limit or network blip would bury the one that matters; no
  alert on a model that has been returning 500 for a week is how jobs die unnoticed. The alerts
  plugin therefore follows one rule per failure class, and the table below is that rule.

  Hermes reports each failed request to the plugin. The plugin records a model-unavailable alert
  when the provider says the model does not exist or is gone (404, 410), or when a failure lasts
  until Hermes gives up on the model (a 5xx, or a 404 that does not name the model, on Hermes'
  last attempt). Rate limits, authentication problems, refused connections, timeouts and broken
  answers are not about the model, so they raise no model-unavailable alert.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Rule: The provider's answer decides whether the model is reported unavailable

    Scenario Outline: What each provider answer leads to: <provider answer>
      Given the provider answers the model "scheduled-model" with "<provider answer>"
      And a scheduled job uses the model "scheduled-model"
      When the scheduler runs once
      Then the alert recorded for "scheduled-model" is "<alert recorded>" with error code "<error code>"
      And the job is marked as <job outcome>
      And Hermes' log records no failure of the plugin

      @promise.removed-model
      Examples: The provider says the model does not exist
        | provider answer                  | alert recorded | error code | job outcome |
        | model does not exist (404)       | yes            | 404        | failed      |

      @promise.gone-model
      Examples: The provider says the model is gone
        | provider answer                  | alert recorded | error code | job outcome |
        | model gone (410)                 | yes            | 410        | failed      |

      @promise.exhausted-retries
      Examples: A failure on Hermes' last attempt (here its only one) that may be about the model
        | provider answer                  | alert recorded | error code | job outcome |
        | not found, model not named (404) | yes            | 404        | failed      |
        | internal server error (500)      | yes            | 500        | failed      |
        | bad gateway (502)                | yes            | 502        | failed      |
        | overloaded (503)                 | yes            | 503        | failed      |

      @promise.quiet-on-transient
      Examples: Failures that are not about the model, and a normal answer
        | provider answer                  | alert recorded | error code | job outcome |
        | bad request (400)                | no             | -          | failed      |
        | wrong API key (401)              | no             | -          | failed      |
        | forbidden (403)                  | no             | -          | failed      |
        | rate limited (429)               | no             | -          | failed      |
        | connection refused               | no             | -          | failed      |
        | no answer in time                | no             | -          | failed      |
        | a normal answer                  | no             | -          | successful  |

      @promise.quiet-on-transient @since.hermes-0.17.0
      Examples: An answer Hermes cannot read fails the job (Hermes 0.17.0 and later)
        | provider answer     | alert recorded | error code | job outcome |
        | malformed JSON body | no             | -          | failed      |
        | empty choices list  | no             | -          | failed      |

      @promise.quiet-on-transient @before.hermes-0.17.0
      Examples: Hermes 0.16.0 takes an answer it cannot read for an empty reply, and the job succeeds
        | provider answer     | alert recorded | error code | job outcome |
        | malformed JSON body | no             | -          | successful  |
        | empty choices list  | no             | -          | successful  |

  Rule: A failure is an alert only if it outlasts Hermes' retries

    @promise.quiet-on-transient
    Scenario: A model that fails twice and then answers raises no alert
      Given Hermes makes up to 3 attempts per request
      And the provider fails the model "flaky-model" 2 times with "internal server error (500)", then answers
      And a scheduled job uses the model "flaky-model"
      When the scheduler runs once
      Then the provider received 3 requests for "flaky-model"
      And the job is marked as successful
      And no model-unavailable alert is recorded

    @promise.exhausted-retries
    Scenario Outline: A model that keeps failing is reported once, when Hermes gives up
      Given Hermes makes up to 3 attempts per request
      And the provider answers the model "broken-model" with "overloaded (503)"
      And a scheduled job uses the model "broken-model"
      When the scheduler runs once
      Then the provider received <requests> requests for "broken-model"
      And the model "broken-model" raises one alert for the run
      And the alert names the model "broken-model" from provider "custom" with error code 503

      @before.hermes-0.22.0
      Examples: One request per attempt
        | requests |
        | 3        |

      # 0.22 streams the request, and after a streamed 5xx asks once more without streaming to
      # read the provider's real error (one such probe a minute: chat_completion_helpers.py).
      @since.hermes-0.22.0
      Examples: Hermes 0.22 asks once more, unstreamed, after the first failed stream
        | requests |
        | 4        |

  Rule: The alert names the model and provider that actually failed

    @promise.removed-model
    Scenario: A fallback keeps the job alive, and the alert is the only trace of the gone model
      Given the provider no longer serves the model "primary-model"
      And a fallback provider serves the model "backup-model"
      And a scheduled job uses the model "primary-model"
      When the scheduler runs once
      Then the job is marked as successful
      And the fallback provider received the job's request for "backup-model"
      And the alert names the model "primary-model" from provider "custom" with error code 404

    @promise.removed-model @before.hermes-0.22.0
    Scenario: A job pinned to its own model and provider is reported under that provider
      Given the provider serves the model "everyday-model" as Hermes' default
      And the local provider "lmstudio" no longer serves the model "pinned-model"
      And a scheduled job is pinned to the model "pinned-model" on the provider "lmstudio"
      When the scheduler runs once
      Then exactly one model-unavailable alert is recorded
      And the alert names the model "pinned-model" from provider "lmstudio" with error code 404

    # 0.22 sends a named provider's job only to that provider's own address (LM Studio's is
    # http://127.0.0.1:1234/v1); the stand-in listens on a free port, so Hermes refuses the job.
    @promise.removed-model @since.hermes-0.22.0
    Scenario: A job pinned to a named provider at another address is refused, and raises no alert
      Given the provider serves the model "everyday-model" as Hermes' default
      And the local provider "lmstudio" no longer serves the model "pinned-model"
      And a scheduled job is pinned to the model "pinned-model" on the provider "lmstudio"
      When the scheduler runs once
      Then the job is marked as failed with Hermes' message "blocked for safety"
      And no model-unavailable alert is recorded

    @promise.removed-model @promise.alert-store
    Scenario: Two jobs on two gone models in one tick raise two alerts
      Given the provider no longer serves the models "old-model-a" and "old-model-b"
      And scheduled jobs use the models "old-model-a" and "old-model-b"
      When the scheduler runs once
      Then the alert names the model "old-model-a" from provider "custom" with error code 404
      And the alert names the model "old-model-b" from provider "custom" with error code 404
      And the telemetry log reports the model "old-model-a" as unavailable with code 404
      And the telemetry log reports the model "old-model-b" as unavailable with code 404

  Rule: A failure that is no alert is still noted, so an operator can tell it was seen
    An operator whose job failed on a rate limit and who finds no alert asks first whether the
    plugin saw the failure at all: a plugin that says nothing looks like one that never loaded.

    @promise.quiet-on-transient @promise.non-alerts-logged
    Scenario Outline: The plugin notes a failure it does not report: <provider answer>
      Given the provider answers the model "scheduled-model" with "<provider answer>"
      And a scheduled job uses the model "scheduled-model"
      When the scheduler runs once
      Then no model-unavailable alert is recorded
      And the telemetry log notes the <status> failure of "scheduled-model" without reporting it

      Examples: Failures that are not about the model
        | provider answer     | status |
        | wrong API key (401) | 401    |
        | rate limited (429)  | 429    |

@since.hermes-0.22.0 @promise.removed-model @protocol.anthropic-messages
Feature: A companion plugin can teach Hermes a provider's words for a removed model
  Hermes decides whether a failed request means a removed model by the provider's words.
  Anthropic's "not_found_error" is not among the words it knows: it reports the failure to the
  plugin as unknown and worth retrying, and tries again. A plugin that alerts only when Hermes
  says the model is gone (as the upstream telemetry plugin does) never raises an alert for
  Claude users whose model was removed.

  From Hermes 0.22 on, a plugin may classify a provider's error before Hermes does. A small
  companion plugin that knows Anthropic's and OpenRouter's words for "not found" makes Hermes
  report the removed model on the first failed request, stop retrying it, and the alert follows.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes up to 3 attempts per request
    And Hermes talks to its provider over Anthropic's Messages API

  Scenario: Without a companion, Anthropic's "not found" is tried again until Hermes gives up
    Given the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then the provider received 3 requests for "gone-model"
    And the job is marked as failed
    And exactly one model-unavailable alert is recorded

  Scenario: A companion that knows Anthropic's words makes it one request and one alert
    Given a companion plugin tells Hermes that a provider's "not found" means the model is gone
    And the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then Hermes gave up on the model "gone-model" after its first request
    And Hermes' log says "API error classified by plugin hook: model_not_found"
    And the job is marked as failed
    And exactly one model-unavailable alert is recorded
    And the alert names the model "gone-model" from provider "custom" with error code 404
    And Hermes' log records no failure of the plugin

@promise.removed-model
Feature: A removed model is an alert whatever protocol Hermes speaks to its provider
  Claude users run Hermes against Anthropic's Messages API, not OpenAI's chat completions: they
  install it with its Anthropic extra, and Hermes sends every request through Anthropic's own
  client. The same removed model then reaches the plugin in Anthropic's words, a "not_found_error"
  that Hermes does not recognise as a removed model: it calls it an unknown failure and tries
  again. A plugin that only listens for OpenAI's "model does not exist" leaves these users' jobs
  failing without an alert.

  Codex users reach OpenAI over its Responses API instead (Hermes speaks it to a Codex login,
  never to a custom provider), where a model they cannot use is refused in OpenAI's own words.

  These scenarios install Hermes the way those users do, with the extra that brings the
  provider's client, and the provider answers in that protocol's own words. Anthropic may also
  answer 200 and then send an error inside the stream, an overloaded API among them: the job
  fails, but the model is still served, and an alert would send an operator to replace a model
  that is not gone. A Codex login's Responses stream fails the same way, with a failed response
  whose status Hermes passes on as a word ("server_error"), not a number.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  @protocol.anthropic-messages @provider.anthropic
  Scenario: A model removed by an Anthropic Messages provider raises a model-unavailable alert
    Given Hermes talks to its provider over Anthropic's Messages API
    And the provider no longer serves the model "gone-model"
    And an operator schedules a job on the model "gone-model" from the command line
    When the scheduler runs once
    Then the job's request for "gone-model" reached the provider over Anthropic's Messages API
    And the provider received the job's request for "gone-model"
    And the job is marked as failed
    And exactly one model-unavailable alert is recorded
    And the alert names the model "gone-model" from provider "custom" with error code 404
    And the alert for "gone-model" carries the provider's message
    And Hermes' log records no failure of the plugin

  @protocol.anthropic-messages @provider.anthropic
  Scenario: Over Anthropic's Messages API with Hermes' default retries, a removed model is one alert
    Given Hermes talks to its provider over Anthropic's Messages API
    And Hermes makes as many attempts per request as it does by default
    And the provider "Anthropic" no longer serves the model "gone-model", saying "not_found_error (404)"
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then the job's request for "gone-model" reached the provider over Anthropic's Messages API
    And the job is marked as failed
    And the model removed by "Anthropic" raises one alert with error code 404

  @protocol.responses @provider.openai
  Scenario: Over OpenAI's Responses API with Hermes' default retries, a removed model is one alert
    Given Hermes talks to its provider over OpenAI's Responses API
    And Hermes makes as many attempts per request as it does by default
    And the provider "OpenAI" no longer serves the model "gone-model", saying "model does not exist (404)"
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then the job's request for "gone-model" reached the provider over OpenAI's Responses API
    And the job is marked as failed
    And the model removed by "OpenAI" raises one alert with error code 404

  @protocol.anthropic-messages @provider.anthropic @promise.quiet-on-transient
  Scenario: An Anthropic stream that breaks off overloaded fails the job without a model-unavailable alert
    Given Hermes talks to its provider over Anthropic's Messages API
    And the provider "Anthropic" answers the model "busy-model" saying "overloaded_error event in the stream (200)"
    And a scheduled job uses the model "busy-model"
    When the scheduler runs once
    Then the job's request for "busy-model" reached the provider over Anthropic's Messages API
    And the job is marked as failed
    And no model-unavailable alert is recorded
    And Hermes' log records no failure of the plugin

  @protocol.responses @provider.openai @promise.quiet-on-transient
  Scenario: A Responses stream that fails inside fails the job without a model-unavailable alert
    Given Hermes talks to its provider over OpenAI's Responses API
    And the provider "OpenAI" answers the model "busy-model" saying "response.failed event in the stream (200)"
    And a scheduled job uses the model "busy-model"
    When the scheduler runs once
    Then the job's request for "busy-model" reached the provider over OpenAI's Responses API
    And the job is marked as failed
    And no model-unavailable alert is recorded
    And Hermes' log records no failure of the plugin

  @protocol.anthropic-messages
  Scenario: A healthy model over Anthropic's Messages API raises no alert
    Given Hermes talks to its provider over Anthropic's Messages API
    And the provider serves the model "healthy-model"
    And a scheduled job uses the model "healthy-model"
    When the scheduler runs once
    Then the job's request for "healthy-model" reached the provider over Anthropic's Messages API
    And the provider received the job's request for "healthy-model"
    And the job is marked as successful
    And no model-unavailable alert is recorded

  @protocol.bedrock-converse
  Scenario: A healthy model on Amazon Bedrock raises no alert
    Given Hermes talks to its provider over Amazon Bedrock's Converse API
    And the provider serves the model "healthy-model"
    And a scheduled job uses the model "healthy-model"
    When the scheduler runs once
    Then the job's request for "healthy-model" reached the provider over Amazon Bedrock's Converse API
    And the provider received the job's request for "healthy-model"
    And the job is marked as successful
    And no model-unavailable alert is recorded

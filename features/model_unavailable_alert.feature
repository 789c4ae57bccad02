@smoke @promise.removed-model
Feature: A model the provider stops serving becomes an alert someone can see
  Providers retire models without notice. When that happens to the model a scheduled job uses,
  every run of the job fails with "model not found", and Hermes carries on quietly: nothing tells
  the operator that the job has been dead since the day the model went away.

  The alerts plugin closes that gap. When Hermes reports that the provider no longer knows a
  model, the plugin raises a model-unavailable alert where its operators look, naming the model,
  its provider and the provider's answer; a plugin that keeps one alert per model counts every
  repeat on it.

  These scenarios run the real scheduler (`hermes cron tick`), which sends the job's request to a
  provider over HTTP; the provider is a local stand-in, so no credentials or network are needed.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Scenario: A job whose model was removed raises a model-unavailable alert
    Given the provider no longer serves the model "gone-model"
    And an operator schedules a job on the model "gone-model" from the command line
    When the scheduler runs once
    Then the provider received the job's request for "gone-model"
    And the job is marked as failed
    And exactly one model-unavailable alert is recorded
    And the alert names the model "gone-model" from provider "custom" with error code 404
    And the alert for "gone-model" carries the provider's message
    And Hermes' log records no failure of the plugin

  Scenario: A job whose model is healthy raises no alert
    Given the provider serves the model "healthy-model"
    And a scheduled job uses the model "healthy-model"
    When the scheduler runs once
    Then the provider received the job's request for "healthy-model"
    And the job is marked as successful
    And no model-unavailable alert is recorded
    And the telemetry log reports no unavailable model

  @promise.alert-store
  Scenario: A model that stays gone is counted on one alert and logged each time
    Given the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"
    And the scheduler has already recorded an alert for "gone-model"
    When the scheduler runs again
    Then exactly one model-unavailable alert is recorded
    And the alert for "gone-model" has been seen 2 times
    And the alert keeps its first sighting and moves its last sighting later
    And the telemetry log reports 2 captures for "gone-model"
    And the telemetry log names the reason "model_not_found" and the run of the job that failed
    And every capture line in the telemetry log names the provider "custom"
    And the telemetry log holds no error
    And the alert is stored in the shared contract's table, index included

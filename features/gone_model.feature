@promise.gone-model
Feature: A model the provider says is gone for good is an alert on its first failure
  Some providers answer "410 Gone" for a retired model instead of "404 not found". The model will
  not come back, so its first failure already is the alert: a plugin that only knows the 404 of
  a removed model leaves every job on a gone model failing in silence. (The failure table checks
  the same answer among all the others; this promise is for plugins that keep it alone.)

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Scenario: A job whose model is gone raises a model-unavailable alert
    Given the provider answers the model "retired-model" with "model gone (410)"
    And a scheduled job uses the model "retired-model"
    When the scheduler runs once
    Then the alert names the model "retired-model" from provider "custom" with error code 410

  @promise.alert-store
  Scenario: A store also logs the gone model's first failure as a capture line
    Given the provider answers the model "retired-model" with "model gone (410)"
    And a scheduled job uses the model "retired-model"
    When the scheduler runs once
    Then the telemetry log reports the model "retired-model" as unavailable with code 410

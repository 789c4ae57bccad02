@hostile
Feature: Odd and hostile provider answers are stored safely
  Provider errors are untrusted text. Some echo the caller's credentials back (an API key, a bearer
  token, a key in a URL), and model names come from configuration anyone can edit. An alert store
  that copies a secret into a database and a log file leaks it to everyone who reads them; one
  that builds SQL from a model name can be broken by it, and a log that writes the name as it is
  lets a quote end the field it sits in, or a terminal escape rewrite the reader's screen.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  @promise.redaction @promise.alert-store
  Scenario: A provider error that echoes a secret is stored and logged without it
    Given the provider no longer serves the model "gone-model", and its error echoes the key "sk-live-hermetic-echo-0123456789abcdef"
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then the alert names the model "gone-model" from provider "custom" with error code 404
    And neither the alert nor the telemetry log contains "sk-live-hermetic-echo-0123456789abcdef"

  @promise.removed-model @promise.alert-store
  Scenario: A model name made of quotes and SQL is stored as plain data
    Given the provider no longer serves the model "gone'); DROP TABLE model_unavailable_alerts;--"
    And a scheduled job uses the model "gone'); DROP TABLE model_unavailable_alerts;--"
    When the scheduler runs once
    Then the alert names the model "gone'); DROP TABLE model_unavailable_alerts;--" from provider "custom" with error code 404
    And the telemetry log reports the model "gone'); DROP TABLE model_unavailable_alerts;--" as unavailable with code 404

  @promise.store-faults @promise.alert-store
  Scenario Outline: A model name with <trait> is named exactly when its alert cannot be stored
    Given a scheduled job uses a model whose name holds <trait>, which the provider no longer serves
    And the alert store suffers a corrupt database file
    When the scheduler runs once
    Then the telemetry log says that model's alert could not be stored, naming the model exactly

    Examples: One line, every character escaped as the capture line escapes it
      | trait                       |
      | quotes and SQL              |
      | a terminal escape and a tab |

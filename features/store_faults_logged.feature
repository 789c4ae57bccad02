@faults @promise.store-faults-logged @promise.alert-store
Feature: A broken alert store is said in the log, and the job goes on as without the plugin
  A plugin without a spool cannot keep an alert its store refuses: that alert is lost (keeping it
  is the store-faults promise, store_faults.feature). What such a plugin can still promise is that
  nobody is left guessing and nothing else breaks: the capture still reaches the telemetry log,
  with an error beside it, and the job fails exactly as it would without the plugin.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request
    And the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"

  Scenario Outline: A store with <fault> is said in the log
    Given the alert store suffers <fault>
    When the scheduler runs once
    Then the job is marked as failed
    And the telemetry log reports the model "gone-model" as unavailable with code 404
    And the telemetry log holds an error

    Examples: Every fault is said
      | fault                                     |
      | a write lock held by another process      |
      | a corrupt database file                   |
      | a table with an unexpected schema         |
      | a full disk                               |
      | a telemetry folder that cannot be written |

@reliability @promise.removed-model @promise.alert-store
Feature: Every alert is counted, even when many jobs fail at once
  When a provider retires a popular model, every job on it fails in the same minute. Hermes runs
  due jobs on parallel threads, and a second scheduler process can start while one is running.
  That is exactly when an alert store that loses a write, or counts one twice, gives the wrong
  picture: operators size an outage by these counts.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Rule: Parallel failures in one tick are all counted, tick after tick

    Scenario: Eight jobs on the same removed model fail together, three ticks in a row
      Given the provider no longer serves the model "gone-model"
      And 8 scheduled jobs use the model "gone-model"
      When the scheduler runs 3 times
      Then the alert for "gone-model" has been seen 24 times
      And the telemetry log reports 24 captures for "gone-model"

    Scenario: Eight jobs on eight removed models fail together
      Given 8 scheduled jobs each use their own model, which the provider no longer serves
      When the scheduler runs once
      Then 8 model-unavailable alerts are recorded, each seen once

  Rule: Two schedulers at once neither lose nor double an alert

    Scenario: Two scheduler processes start together on one Hermes home
      Given the provider no longer serves the model "gone-model"
      And 4 scheduled jobs use the model "gone-model"
      When two schedulers run at the same moment
      Then the provider received 4 requests for "gone-model"
      And the alert for "gone-model" has been seen 4 times

  Rule: Runs side by side share nothing

    Scenario: Three sandboxes run their schedulers at the same time
      When 3 sandboxes each run a job on their own removed model at the same time
      Then each sandbox recorded only its own alert, on its own port, home and database

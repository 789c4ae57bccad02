@faults @promise.store-faults @promise.alert-store
Feature: An alert survives a broken alert store, and Hermes is never taken down by it
  The alert store fails in real life: another process holds the database, a file is corrupted,
  someone created the table with other columns, the disk fills up, a folder's permissions are
  tightened. An alerts plugin is only worth having if, on such a day, the job still runs exactly
  as it would without the plugin, the capture line still reaches the log with a clear error beside
  it, no alert is silently dropped, and the next capture after the repair is stored normally.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"

  Rule: A store fault costs no alert and never changes the job's outcome

    Scenario: A database locked for a few seconds is waited for, then written
      Given the alert store suffers a write lock held by another process for 2 seconds after the plugin asks for it
      When the scheduler runs once
      Then the job is marked as failed
      And the alert for "gone-model" has been seen 1 times
      And the telemetry log holds no store error

    Scenario Outline: An alert survives <fault>
      Given the alert store suffers <fault>
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And the telemetry log reports 2 captures for "gone-model"
      And the telemetry log explains that an alert could not be stored
      And the alert for "gone-model" has been seen 2 times

      Examples: Nothing is lost
        | fault                                     |
        | a write lock held by another process      |
        | a corrupt database file                   |
        | a table with an unexpected schema         |
        | a full disk                               |
        | a telemetry folder that cannot be written |

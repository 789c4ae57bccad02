@faults @promise.store-faults @promise.alert-store
Feature: An alert survives a broken alert store, and Hermes is never taken down by it
  The alert store fails in real life: another process holds the database, a file is corrupted,
  someone created the table with other columns, the disk fills up, a folder's permissions are
  tightened. An alerts plugin is only worth having if, on such a day, the job still runs exactly
  as it would without the plugin, the capture line still reaches the log with an error beside it
  that says what to fix, no alert is silently dropped, and the next capture after the repair is
  stored normally. The spool a plugin keeps alerts in meanwhile can fail too (its files are
  named in the plugin's profile; a plugin that keeps none skips those scenarios).

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

    Scenario: A database another program writes to without WAL is waited for, then written
      Given the alert store suffers a write lock held by a program without WAL for 2 seconds after the plugin asks for it
      When the scheduler runs once
      Then the job is marked as failed
      And the alert for "gone-model" has been seen 1 times
      And the telemetry log holds no store error

    Scenario Outline: An alert survives <fault>
      Given the alert store suffers <fault>
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And the telemetry log reports 2 captures for "gone-model"
      And the telemetry log explains that the alert for "gone-model" could not be stored because <cause>
      And the telemetry log says the kept alert was stored once the fault was cleared
      And the alert for "gone-model" has been seen 2 times

      Examples: Nothing is lost, and the log says what to fix
        | fault                                     | cause                              |
        | a write lock held by another process      | the database is locked             |
        | a corrupt database file                   | the file is not a database         |
        | a table with an unexpected schema         | the table has an unexpected schema |
        | a full disk                               | the disk is full                   |
        | a telemetry folder that cannot be written | the database cannot be written     |

  Rule: A database that is not a database is named for the operator, and left for them

    Scenario: The file that is not a database is named in the log, and left as it was
      Given the alert store suffers a corrupt database file
      When the scheduler runs once
      Then the job is marked as failed
      And the telemetry log names the alert store's file where it says the alert could not be stored
      And the file that is not a database is left as it was

  Rule: A telemetry log that cannot be opened costs no alert, and Hermes' own log says so

    Scenario: An alert survives a telemetry log that cannot be opened
      Given the alert store suffers a telemetry log that cannot be opened
      When the scheduler runs once
      Then the job is marked as failed
      And the alert for "gone-model" has been seen 1 times
      And Hermes' log says the plugin cannot open its telemetry log, and why

  Rule: A broken spool, where alerts wait for the store, costs no alert either

    Scenario: An alert survives a spool locked by another process
      Given the alert store suffers a corrupt database file
      And the plugin's spool suffers a lock held by another process
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And the telemetry log reports 2 captures for "gone-model"
      And the alert for "gone-model" has been seen 2 times

    Scenario: A spool that cannot be deleted after its replay is reported
      Given the alert store suffers a corrupt database file
      And the plugin's spool suffers a file that cannot be deleted
      When the scheduler runs once, and once more after the fault is cleared
      Then the alert for "gone-model" has been seen 2 times
      And the telemetry log says the plugin's spool could not be deleted

    Scenario: A full spool takes no more alerts
      Given the alert store suffers a corrupt database file
      And the plugin's spool suffers a file at its size limit
      When the scheduler runs once
      Then the job is marked as failed
      And the telemetry log reports 1 captures for "gone-model"
      And the plugin's spool has not grown past its size limit

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
    And Hermes makes one attempt per request
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

  Rule: An alert the store refuses goes whole into a spool, or the log keeps all of it

    Scenario: An alert no spool can keep is logged with everything it held
      Given the alert store suffers a full disk
      And the plugin's spool suffers a full disk, its fallback spool included
      When the scheduler runs once
      Then the job is marked as failed
      And the telemetry log says the alert for "gone-model" was lost, with everything it held
      And the telemetry log names every spool that could not keep the alert for "gone-model"

    Scenario: A spool locked for a moment is waited for
      Given the alert store suffers a corrupt database file
      And the plugin's spool suffers a lock held by another process for a moment after the plugin asks for it
      When the scheduler runs once
      Then the plugin's spool was left alone while another process held its lock
      And the plugin's spool holds the alert for "gone-model"
      And the telemetry log says 1 alert is waiting for the store

    Scenario: An alert added after a line torn by a crash is replayed whole
      Given the alert store suffers a corrupt database file
      And the plugin's spool suffers a last line torn by a crash
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And the alert for "gone-model" has been seen 2 times

    Scenario: A disk that fills up in the middle of an append leaves no half alert behind
      Given the alert store suffers a corrupt database file
      And the plugin's spool suffers a disk that fills up in the middle of a write
      When the scheduler runs once
      Then the job is marked as failed
      And the plugin's spool holds no half-written alert
      And the telemetry log says 1 alert is waiting for the store

  Rule: What the spool holds is replayed as it was kept, and what is no alert is named, not lost in silence

    Scenario Outline: An alert kept in the spool for another model is stored as it was kept, <with>
      Given the plugin's spool keeps an alert for "kept-model" with error code 410 and <with>, seen at "2026-11-30T08:00:00+00:00"
      When the scheduler runs once
      Then the alert for "gone-model" has been seen 1 times
      And the kept alert for "kept-model" is stored as it was kept

      Examples: The replayed row is the kept alert, field for field
        | with                                  |
        | the message "kept-model was retired"  |
        | no message                            |

    Scenario: Lines of the spool that are not alerts are named in the log and dropped, and the alert beside them is stored
      Given the plugin's spool keeps an alert for "kept-model" with error code 410 and no message, seen at "2026-11-30T08:00:00+00:00"
      And the plugin's spool also holds lines that are not alerts
        | what is wrong                        |
        | a line cut short                     |
        | a record that is no alert            |
        | a model that is not text             |
        | an error code that is no HTTP status |
        | a message that is not text           |
        | a time that is not a time            |
        | a time without a UTC offset          |
      When the scheduler runs once
      Then 2 model-unavailable alerts are recorded, each seen once
      And the kept alert for "kept-model" is stored as it was kept
      And the telemetry log names each line of the spool that is not an alert, and why

    Scenario: A spool far larger than the plugin replays is reported and left alone
      Given the plugin's spool keeps an alert for "kept-model" with error code 410 and no message, seen at "2026-11-30T08:00:00+00:00"
      And the plugin's spool has grown past the size the plugin replays
      When the scheduler runs once
      Then exactly one model-unavailable alert is recorded
      And the alert for "gone-model" has been seen 1 times
      And the telemetry log says the plugin's spool was not replayed, and why
      And the plugin's spool is still there, as it was

    Scenario Outline: A spool that is <thing> holds no pending alert, and is left as it is
      Given the plugin's spool is <thing>
      When the scheduler runs once
      Then the alert for "gone-model" has been seen 1 times
      And the telemetry log holds no error
      And the plugin's spool is still there, as it was

      Examples: Nothing is pending, so nothing is said to be
        | thing                              |
        | a folder                           |
        | a link to a name too long to exist |

  Rule: A store that fails in a way the log must name precisely still costs no alert

    Scenario: An alert survives a database damaged inside
      Given the alert store suffers a database file with damaged pages
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And the telemetry log reports 2 captures for "gone-model"
      And the telemetry log explains that the alert for "gone-model" could not be stored because the file is not a database
      And the telemetry log says the kept alert was stored once the fault was cleared
      And the alert for "gone-model" has been seen 2 times

    Scenario: An alert survives a lock held past the plugin's wait by a program without WAL
      Given the alert store suffers a write lock held by a program without WAL
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And the telemetry log reports 2 captures for "gone-model"
      And the telemetry log explains that the alert for "gone-model" could not be stored because the database is locked
      And the telemetry log says the kept alert was stored once the fault was cleared
      And the alert for "gone-model" has been seen 2 times

    Scenario: Without its telemetry log, a store fault is said in Hermes' own log
      Given the alert store suffers a telemetry log that cannot be opened
      And the alert store suffers a corrupt database file
      When the scheduler runs once, and once more after the fault is cleared
      Then the job is marked as failed
      And Hermes' log explains that the alert for "gone-model" could not be stored because the file is not a database
      And the alert for "gone-model" has been seen 2 times

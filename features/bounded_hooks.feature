@promise.removed-model
Feature: An alert plugin's hook has the time Hermes gives it, and no more
  Newer Hermes code (0.22) no longer runs a plugin's hook to the end: it runs it on a worker of
  its own and waits at most `plugins.hook_callback_timeout` seconds (30 by default). A hook that
  takes longer is abandoned. It keeps running unattended until the scheduler exits, and whatever
  it had not written by then is gone: the operator gets no alert, and only Hermes' own log says
  why. Older Hermes waited for a hook however long it took.

  A plugin author needs to know both halves: that an alert written in time survives the end of
  the scheduler's run, and what happens to one that is not.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request
    And the provider no longer serves the model "gone-model"

  @directory-plugin
  Scenario: A hook that takes a while, within Hermes' time for hooks, keeps its alert
    Given the plugin takes 2 seconds to record an alert
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then exactly one model-unavailable alert is recorded
    And Hermes reports no plugin hook that ran over its time

  @since.hermes-0.22.0 @directory-plugin
  Scenario: Hermes abandons a hook that runs over its time, and the alert it had not written is lost
    Given Hermes waits at most 1 second for a plugin hook
    And the plugin takes 20 seconds to record an alert
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then Hermes reports that it stopped waiting for the plugin's hook after 1 second
    And the job is marked as failed
    And no model-unavailable alert is recorded

  @before.hermes-0.22.0 @directory-plugin
  Scenario: Hermes before 0.22 waits for a slow hook however long it takes, and keeps its alert
    Given Hermes waits at most 1 second for a plugin hook
    And the plugin takes 3 seconds to record an alert
    And a scheduled job uses the model "gone-model"
    When the scheduler runs once
    Then exactly one model-unavailable alert is recorded
    And Hermes reports no plugin hook that ran over its time

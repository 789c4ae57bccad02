@gateway @promise.gateway
Feature: The unattended scheduler inside the gateway raises the same alerts
  Most scheduled jobs run unattended: the gateway daemon (`hermes gateway run`, usually under
  systemd) carries a scheduler that fires due jobs on its own. On a developer machine that daemon
  serves the developer's real Hermes home, so this path was never exercised against a test
  plugin, and a plugin that only works from `hermes cron tick` would fail exactly where nobody
  watches.

  These scenarios run the gateway in the foreground inside the sandbox, with no messaging
  platform, and let its own scheduler fire the job. They also stop it the way an operator does,
  and check that it leaves nothing running behind.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Scenario: The gateway's own scheduler reports a removed model
    Given the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"
    When the gateway runs until its scheduler has run the job
    Then the job is marked as failed
    And the alert names the model "gone-model" from provider "custom" with error code 404

  Scenario: The gateway's own scheduler runs a healthy job without an alert
    Given the provider serves the model "healthy-model"
    And a scheduled job uses the model "healthy-model"
    When the gateway runs until its scheduler has run the job
    Then the job is marked as successful
    And no model-unavailable alert is recorded

  Scenario Outline: An operator stops the gateway with <how>, and nothing is left running
    Given the provider no longer serves the model "gone-model"
    And a scheduled job uses the model "gone-model"
    And the gateway is running and its scheduler has run the job
    When the operator stops the gateway with <how>
    Then the gateway has exited cleanly and left no process behind

    Examples:
      | how                 |
      | hermes gateway stop |
      | Ctrl-C              |

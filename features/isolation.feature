@isolation
Feature: A test run stays inside its sandbox
  The suite runs real Hermes on a developer's machine, next to that developer's own Hermes set-up,
  keys and network. A run that wrote to the real ~/.hermes, used a real key, reached a real
  provider or installed a package would damage exactly the thing it is meant to protect, and a run
  that silently tested the wrong copy of the plugin would prove nothing. Each guarantee below is
  checked with a scenario that would fail if the guarantee broke.

  A suite whose Hermes can import the suite's own packages proves nothing for users: a plugin that
  needs such a package works in the test and fails to load on every real installation, silently.
  So Hermes runs from an environment of its own, installed the way users install it.

  The network and plugin guarantees are also checked after every Hermes run in every other
  feature: a plugin that fails to load, a run that reaches beyond loopback, or one that loads a
  plugin other than the one under test fails its scenario.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And the provider no longer serves the model "gone-model"

  Rule: The developer's own home and keys are never used

    Scenario: The developer's own Hermes set-up stays byte-identical and its provider hears nothing
      Given the developer's home holds a Hermes set-up of its own, with a job that is due
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the developer's home is byte-identical to before the run
      And the developer's own provider received no request
      And exactly one model-unavailable alert is recorded

    Scenario: Keys in the developer's shell never reach Hermes, and the run needs none
      Given the developer's shell holds provider keys and messaging tokens
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then no Hermes process saw a credential variable
      And the Hermes home holds no credential file and no key but the provider's dummy key
      And the provider received only the dummy key
      And exactly one model-unavailable alert is recorded

  Rule: Nothing leaves the machine and nothing is installed

    # 0.22 no longer asks openrouter.ai about a custom endpoint's model: it asks the endpoint
    # itself and falls back to 256,000 tokens (agent/model_metadata.py), so nothing goes online.
    @before.hermes-0.22.0
    Scenario: A lookup beyond loopback is caught and named
      Given Hermes is allowed to look up model details online
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the run is reported for trying to reach "openrouter.ai"
      And the request to the provider was recorded as loopback

    Scenario: A run installs no package
      Given the packages installed beside Hermes are noted
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the installed packages are exactly those noted before

  Rule: Hermes runs as users install it

    Scenario: Hermes runs with its own packages, and none of the test suite's
      Given a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then Hermes' environment holds Hermes and what it requires, and nothing else
      And nothing of the test suite can be imported where Hermes runs
      And exactly one model-unavailable alert is recorded

    Scenario: A plugin that needs a package Hermes does not ship is reported as not loaded
      Given the plugin under test also imports "sqlalchemy" when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports that Hermes could not load the plugin: "No module named 'sqlalchemy'"

  Rule: The plugin Hermes runs is the plugin under test

    Scenario: A stale copy of the plugin in the plugins folder is reported, not silently used
      Given a stale copy of the plugin lies in the plugins folder
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports that Hermes loaded the stale copy instead of the plugin under test

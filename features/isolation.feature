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
    And Hermes makes one attempt per request
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
    @netns @before.hermes-0.22.0
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

  Rule: What the loopback guard cannot see, the kernel refuses, and the run names who tried
    Each behave process runs in a network namespace whose only interface is loopback, so an
    attempt made by a plugin's child process or a C extension's own socket cannot leave the
    machine either. The run still has to say who tried, or a plugin that phones home would pass.
    These scenarios try for real, so they run only where the namespace exists.

    @netns @directory-plugin
    Scenario: A program the plugin starts that connects beyond loopback is stopped and named
      Given the plugin under test starts a program that connects to "192.0.2.10" when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the run is reported for a program of the plugin under test trying to reach "192.0.2.10"
      And exactly one model-unavailable alert is recorded

    @netns @directory-plugin
    Scenario: The plugin's own C-level connection beyond loopback is stopped and named
      Given the plugin under test connects to "192.0.2.10" through the C library when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the run is reported for the plugin under test connecting to "192.0.2.10" through the C library
      And exactly one model-unavailable alert is recorded

  Rule: Hermes runs as users install it

    Scenario: Hermes runs with its own packages, and none of the test suite's
      Given a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then Hermes' environment holds Hermes and what it requires, and nothing else
      And nothing of the test suite can be imported where Hermes runs
      And exactly one model-unavailable alert is recorded

    # @directory-plugin: these change the copy of a plugin folder in the plugins folder; a
    # plugin installed with pip has no such copy, and is skipped saying so.
    @directory-plugin
    Scenario: A plugin that needs a package Hermes does not ship is reported as not loaded
      Given the plugin under test also imports "sqlalchemy" when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports that Hermes could not load the plugin: "No module named 'sqlalchemy'"

  Rule: The plugin Hermes runs is the plugin under test

    @directory-plugin
    Scenario: A stale copy of the plugin in the plugins folder is reported, not silently used
      Given a stale copy of the plugin lies in the plugins folder
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports that Hermes loaded the stale copy instead of the plugin under test

  Rule: A stand-in key goes to loopback peers only

    A vendor plugin stays off until it has a key. A profile gives it "{credential}": a fresh
    random stand-in per scenario, treated as a secret. It may be sent to the scenario's loopback
    peers; written into a log, a stored alert or a command's output, it is what a real key
    would leak, and the run fails naming the file.

    @directory-plugin
    Scenario: A plugin that writes its key into its own log is reported, naming the file
      Given the plugin is given a stand-in key as "VENDOR_API_KEY"
      And the plugin under test writes its key into a log of its own when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports the stand-in key written into the plugin's own log, naming the file

    @directory-plugin
    Scenario: A plugin that sends its key only to its backend keeps it secret
      Given the plugin is given a stand-in key as "VENDOR_API_KEY"
      And the plugin under test sends its key to its backend when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the plugin's backend received the stand-in key, redacted in the suite's records
      And the stand-in key was written nowhere else
      And exactly one model-unavailable alert is recorded

  Rule: The plugin sees nothing of the machine it runs on

    A plugin runs inside Hermes, on the machine of whoever runs the suite: a plugin under
    evaluation may try to take what is theirs, a file in their home or the keys in their shell,
    and put it in its alerts, from where the reports people upload would carry it. It sees an
    empty home and no process but the run's own; the run fails naming each attempt, and
    nothing the plugin could have found reaches a report.

    Scenario: A plugin that snoops on the developer's home and shell finds nothing, and is named
      Given the developer's home holds a file of theirs and their shell holds a key
      And a chat notifier beside the plugin tries to read that file and every process' keys
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports the notifier's attempts to read the file and another process' keys
      And the notifier found neither the file nor the key, and no file of the run holds either
      And exactly one model-unavailable alert is recorded

  Rule: What the plugin writes stays in its sandbox

    A plugin that writes to a fixed path (a log in the temp folder, a queue in the home folder)
    leaves files on every machine it runs on, where nobody reads them, and two Hermes homes
    share them. Every Hermes process of a scenario runs where the temp folders and the home are
    overlays kept inside the sandbox: such a write never reaches the machine, and the run fails
    naming the file.

    @directory-plugin
    Scenario: A plugin that writes a log to a fixed path in the temp folder is reported, naming the file
      Given the plugin under test writes a log of its own to a fixed path in the temp folder when Hermes loads it
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the suite reports the log written outside the sandbox, naming the file
      And the machine's temp folder holds no such file

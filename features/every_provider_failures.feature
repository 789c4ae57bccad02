@provider-words
Feature: A provider's own words for a failure that passes lead to the failure table's decision
  Providers say "slow down" and "too busy" in their own words too: OpenAI's "Rate limit
  reached", Anthropic's rate_limit_error and its 529 overloaded_error, Groq's "Rate limit
  reached for model", NVIDIA NIM's "Too Many Requests". None of them is about the model: a
  plugin that reads them as a removed model sends an operator to replace a model that works,
  and one that ignores an overload that lasts until Hermes gives up misses an outage.

  Each row below is one provider's real answer, copied from a public source (the provider
  corpus, hermetic/corpus/answers.toml, names each source), served over the protocol the
  provider sends it in, to a Hermes that makes one attempt per request. The failure table
  (provider_failures.feature) decides each row: a rate limit is no alert, a server error or an
  overload on Hermes' last attempt is one. A plugin's author adds their own providers' words
  with `hermetic record` (`[providers] answers` in the profile): each recorded answer about such
  a failure becomes a row here, named "recorded".

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes one attempt per request

  Rule: Each provider's words for a rate limit, an overload or a server error are judged by the failure table

    Scenario Outline: <provider> says "<answer>" over <protocol>: alert recorded, <alert recorded>
      Given the provider "<provider>" answers the model "busy-model" over <protocol>, saying "<answer>"
      And a scheduled job uses the model "busy-model"
      When the scheduler runs once
      Then the job's request for "busy-model" reached the provider over <protocol>
      And the job is marked as failed
      And the alert recorded for "busy-model" is "<alert recorded>" with error code "<error code>"
      And Hermes' log records no failure of the plugin

        # generated from hermetic/corpus/answers.toml: tools/corpus_examples.py --write

        @provider.openai @promise.quiet-on-transient
        Examples: OpenAI, a failure that passes
          | provider | protocol                  | answer                   | alert recorded | error code |
          | OpenAI   | OpenAI's chat completions | Rate limit reached (429) | no             | -          |

        @provider.anthropic @protocol.anthropic-messages @promise.quiet-on-transient
        Examples: Anthropic over Anthropic's Messages API, a failure that passes
          | provider  | protocol                 | answer                 | alert recorded | error code |
          | Anthropic | Anthropic's Messages API | rate_limit_error (429) | no             | -          |

        @provider.groq @promise.quiet-on-transient
        Examples: Groq, a failure that passes
          | provider | protocol                  | answer                             | alert recorded | error code |
          | Groq     | OpenAI's chat completions | Rate limit reached for model (429) | no             | -          |

        @provider.nvidia-nim @promise.quiet-on-transient
        Examples: NVIDIA NIM, a failure that passes
          | provider   | protocol                  | answer                  | alert recorded | error code |
          | NVIDIA NIM | OpenAI's chat completions | Too Many Requests (429) | no             | -          |

        @provider.openai @promise.exhausted-retries
        Examples: OpenAI, a failure on Hermes' last attempt
          | provider | protocol                  | answer                              | alert recorded | error code |
          | OpenAI   | OpenAI's chat completions | model is currently overloaded (503) | yes            | 503        |

        @provider.anthropic @protocol.anthropic-messages @promise.exhausted-retries
        Examples: Anthropic over Anthropic's Messages API, a failure on Hermes' last attempt
          | provider  | protocol                 | answer                 | alert recorded | error code |
          | Anthropic | Anthropic's Messages API | overloaded_error (529) | yes            | 529        |

        # end of the generated examples

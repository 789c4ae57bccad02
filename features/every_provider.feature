@promise.removed-model @provider-words
Feature: A model removed by any provider becomes one alert, whatever words the provider uses
  Every provider says "this model is gone" in its own words: OpenAI's "does not exist",
  Anthropic's not_found_error, OpenRouter's "No endpoints found", Groq's "decommissioned", a
  410 when the model reached its end of life. Hermes decides what a failure means by those
  words, so the same removed model reaches the plugin as "model not found" from one provider
  and only as an unknown, retried failure from another. An alert that depends on the
  provider's dialect is an outage nobody hears about: the upstream plugin this suite was built
  for recorded OpenAI's removed models and none of Anthropic's.

  Each row below is one provider's real answer, copied from a public source (the provider
  corpus, hermetic/corpus/answers.toml, names each source). Every one of them must become an
  alert with the provider's status, seen once for the failed run. A plugin that supports only
  some providers says so in its profile (`[providers] only`), and every report shows it.

  Hermes runs here as its users run it: with its default retries (three attempts, with its own
  back-off, for a failure it thinks may pass), so a provider whose words Hermes does not know
  is asked three times, and the plugin hears of every attempt.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes as many attempts per request as it does by default

  Rule: A model removed in any provider's words raises an alert, seen once for the failed run

    Scenario Outline: A model removed by <provider> raises one alert: <answer>
      Given the provider "<provider>" no longer serves the model "gone-model", saying "<answer>"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the job is marked as failed
      And the model removed by "<provider>" raises one alert with error code <error code>

        # generated from hermetic/corpus/answers.toml: tools/corpus_examples.py --write

        @provider.openai
        Examples: OpenAI
          | provider | answer                     | error code |
          | OpenAI   | model does not exist (404) | 404        |

        @provider.anthropic
        Examples: Anthropic
          | provider  | answer                | error code |
          | Anthropic | not_found_error (404) | 404        |

        @provider.openrouter
        Examples: OpenRouter
          | provider   | answer                     | error code |
          | OpenRouter | No endpoints found (404)   | 404        |
          | OpenRouter | not a valid model ID (400) | 400        |

        @provider.google-gemini
        Examples: Google Gemini
          | provider      | answer                          | error code |
          | Google Gemini | not found for API version (404) | 404        |

        @provider.azure-openai
        Examples: Azure OpenAI
          | provider     | answer                   | error code |
          | Azure OpenAI | DeploymentNotFound (404) | 404        |
          | Azure OpenAI | ModelDeprecated (410)    | 410        |

        @provider.mistral
        Examples: Mistral
          | provider | answer              | error code |
          | Mistral  | Invalid model (400) | 400        |

        @provider.groq
        Examples: Groq
          | provider | answer                     | error code |
          | Groq     | model_decommissioned (400) | 400        |

        @provider.together
        Examples: Together
          | provider | answer                       | error code |
          | Together | Unable to access model (404) | 404        |
          | Together | non-serverless model (400)   | 400        |

        @provider.deepseek
        Examples: DeepSeek
          | provider | answer                | error code |
          | DeepSeek | Model Not Exist (400) | 400        |

        @provider.cerebras
        Examples: Cerebras
          | provider | answer                     | error code |
          | Cerebras | Model does not exist (404) | 404        |

        @provider.ollama
        Examples: Ollama
          | provider | answer                                | error code |
          | Ollama   | not found, try pulling it first (404) | 404        |

        @provider.vllm
        Examples: vLLM
          | provider | answer                     | error code |
          | vLLM     | model does not exist (404) | 404        |

        @provider.lm-studio
        Examples: LM Studio
          | provider  | answer                 | error code |
          | LM Studio | No models loaded (404) | 404        |

        @provider.nvidia-nim
        Examples: NVIDIA NIM
          | provider   | answer                        | error code |
          | NVIDIA NIM | reached its end of life (410) | 410        |

        # end of the generated examples

  Rule: A removed model Hermes asks about again is still one alert
    Hermes retries a failure it does not recognise as final, and each attempt reaches the
    plugin: the removed model must still be one alert, seen once, not one per attempt.

    @provider.anthropic
    Scenario: Hermes asks Anthropic three times about a removed model, and one alert is raised
      Given the provider "Anthropic" no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the provider received 3 requests for "gone-model"
      And the model removed by "Anthropic" raises one alert with error code 404

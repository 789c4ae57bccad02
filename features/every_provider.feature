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
  corpus, hermetic/corpus/answers.toml, names each source), served over the protocol the
  provider sends it in: OpenAI's chat completions, Anthropic's Messages API (Hermes installed
  with its Anthropic extra), Amazon Bedrock's Converse API (with its Bedrock extra). Every one
  of them must become an alert with the provider's status, seen once for the failed run. Over
  Converse, Hermes gives the plugin no status at all, only the AWS exception's name: the status
  is the one AWS documents for that exception. A plugin that supports only some providers says
  so in its profile (`[providers] only`), and every report shows it.

  Hermes runs here as its users run it: with its default retries (three attempts, with its own
  back-off, for a failure it thinks may pass), so a provider whose words Hermes does not know
  is asked three times, and the plugin hears of every attempt.

  Background:
    Given a Hermes home with the alerts plugin enabled
    And Hermes makes as many attempts per request as it does by default

  Rule: A model removed in any provider's words raises an alert, seen once for the failed run

    Scenario Outline: A model removed by <provider> over <protocol> raises one alert: <answer>
      Given the provider "<provider>" no longer serves the model "gone-model" over <protocol>, saying "<answer>"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the job's request for "gone-model" reached the provider over <protocol>
      And the job is marked as failed
      And the model removed by "<provider>" raises one alert with error code <error code>

        # generated from hermetic/corpus/answers.toml: tools/corpus_examples.py --write

        @provider.openai
        Examples: OpenAI
          | provider | protocol                  | answer                     | error code |
          | OpenAI   | OpenAI's chat completions | model does not exist (404) | 404        |

        @provider.openai @protocol.responses
        Examples: OpenAI over OpenAI's Responses API
          | provider | protocol               | answer                     | error code |
          | OpenAI   | OpenAI's Responses API | model does not exist (404) | 404        |

        @provider.anthropic @protocol.anthropic-messages
        Examples: Anthropic over Anthropic's Messages API
          | provider  | protocol                 | answer                | error code |
          | Anthropic | Anthropic's Messages API | not_found_error (404) | 404        |

        @provider.anthropic
        Examples: Anthropic
          | provider  | protocol                  | answer                | error code |
          | Anthropic | OpenAI's chat completions | not_found_error (404) | 404        |

        @provider.openrouter
        Examples: OpenRouter
          | provider   | protocol                  | answer                     | error code |
          | OpenRouter | OpenAI's chat completions | No endpoints found (404)   | 404        |
          | OpenRouter | OpenAI's chat completions | not a valid model ID (400) | 400        |

        @provider.google-gemini
        Examples: Google Gemini
          | provider      | protocol                  | answer                          | error code |
          | Google Gemini | OpenAI's chat completions | not found for API version (404) | 404        |

        @provider.azure-openai
        Examples: Azure OpenAI
          | provider     | protocol                  | answer                   | error code |
          | Azure OpenAI | OpenAI's chat completions | DeploymentNotFound (404) | 404        |
          | Azure OpenAI | OpenAI's chat completions | ModelDeprecated (410)    | 410        |

        @provider.mistral
        Examples: Mistral
          | provider | protocol                  | answer              | error code |
          | Mistral  | OpenAI's chat completions | Invalid model (400) | 400        |

        @provider.groq
        Examples: Groq
          | provider | protocol                  | answer                     | error code |
          | Groq     | OpenAI's chat completions | model_decommissioned (400) | 400        |

        @provider.together
        Examples: Together
          | provider | protocol                  | answer                       | error code |
          | Together | OpenAI's chat completions | Unable to access model (404) | 404        |
          | Together | OpenAI's chat completions | non-serverless model (400)   | 400        |

        @provider.deepseek
        Examples: DeepSeek
          | provider | protocol                  | answer                | error code |
          | DeepSeek | OpenAI's chat completions | Model Not Exist (400) | 400        |

        @provider.cerebras
        Examples: Cerebras
          | provider | protocol                  | answer                     | error code |
          | Cerebras | OpenAI's chat completions | Model does not exist (404) | 404        |

        @provider.ollama
        Examples: Ollama
          | provider | protocol                  | answer                                | error code |
          | Ollama   | OpenAI's chat completions | not found, try pulling it first (404) | 404        |

        @provider.vllm
        Examples: vLLM
          | provider | protocol                  | answer                     | error code |
          | vLLM     | OpenAI's chat completions | model does not exist (404) | 404        |

        @provider.lm-studio
        Examples: LM Studio
          | provider  | protocol                  | answer                 | error code |
          | LM Studio | OpenAI's chat completions | No models loaded (404) | 404        |

        @provider.nvidia-nim
        Examples: NVIDIA NIM
          | provider   | protocol                  | answer                        | error code |
          | NVIDIA NIM | OpenAI's chat completions | reached its end of life (410) | 410        |

        @provider.amazon-bedrock @protocol.bedrock-converse
        Examples: Amazon Bedrock over Amazon Bedrock's Converse API
          | provider       | protocol                      | answer                                         | error code |
          | Amazon Bedrock | Amazon Bedrock's Converse API | The provided model identifier is invalid (400) | 400        |

        # end of the generated examples

  Rule: A removed model Hermes asks about again is still one alert
    Hermes retries a failure it does not recognise as final, and each attempt reaches the
    plugin: the removed model must still be one alert, seen once, not one per attempt.

    @provider.anthropic @retried
    Scenario: Hermes asks Anthropic three times about a removed model, and one alert is raised
      Given the provider "Anthropic" no longer serves the model "gone-model"
      And a scheduled job uses the model "gone-model"
      When the scheduler runs once
      Then the provider received 3 requests for "gone-model"
      And the model removed by "Anthropic" raises one alert with error code 404

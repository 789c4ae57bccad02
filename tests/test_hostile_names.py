"""How a log line must name a hostile model name (quotes, a terminal escape, a tab).

Promise under test: the alerts plugin's quoted field passes for every name; the wrong spellings
its mutants write fail (a control character dropped or spelled ``\\u001b``, a quote left
unescaped in a single-quoted field, a raw escape character), as does a missing line.
"""

from __future__ import annotations

import pytest

from alerts_plugin.telemetry_log import field
from hermetic.contract.hostile_names import NAMES, hostile_name, naming_problems, spellings
from hermetic.errors import HarnessError

TERMINAL = NAMES["a terminal escape and a tab"]
QUOTES = NAMES["quotes and SQL"]


def _line(spelled: str) -> str:
    return (
        "2026-12-01 17:00:00,000 ERROR hermetic_alerts could not store model-unavailable alert "
        f"for model='{spelled}' provider='custom': file is not a database"
    )


@pytest.mark.parametrize("model", list(NAMES.values()))
def test_the_plugins_quoted_field_names_every_model(model: str) -> None:
    assert naming_problems([_line(field(model))], model) == []


def test_repr_of_the_name_names_it_too() -> None:
    assert naming_problems([f"lost: model={QUOTES!r}"], QUOTES) == []
    assert spellings(QUOTES) == (repr(QUOTES), "gone\\'); DROP TABLE model_unavailable_alerts;--")


@pytest.mark.parametrize(
    "spelled",
    [
        "gone[2J\tmodel",  # the escape dropped (telemetry_log.py:48:11), the tab raw
        "gone[2Jmodel",  # both dropped (45:7 drops the escape, 46:15 the tab)
        "gone\\u001b[2J\\tmodel",  # \u for a byte (48:31, 48:36)
        "gone\\x1b[2J\\x09model",  # the tab spelled \x09 (45:7, 45:13)
    ],
)
def test_a_control_character_spelled_otherwise_fails(spelled: str) -> None:
    assert naming_problems([_line(spelled)], TERMINAL)


def test_a_raw_escape_fails_even_beside_the_right_spelling() -> None:
    line = _line(field(TERMINAL)) + " \x1b[2J"
    assert naming_problems([line], TERMINAL) == [f"holds raw control characters '\\x1b': {line!r}"]


def test_an_unescaped_quote_in_a_single_quoted_field_fails() -> None:
    # What telemetry_log.py:65:36 (quoted and unquoted swapped) writes.
    assert naming_problems([_line(QUOTES)], QUOTES)


def test_no_line_is_a_problem() -> None:
    assert naming_problems([], QUOTES) == ["no such line"]


def test_an_unknown_trait_names_the_known_ones() -> None:
    with pytest.raises(HarnessError, match="known: quotes and SQL, a terminal escape"):
        hostile_name("emoji")

"""What the spool-replay scenarios write into a plugin's spool and how they read the outcome.

Promise under test: a kept alert is written as the alerts plugin writes one (its own reader
takes it back unchanged), under the keys ``[spool.line]`` names; every kind of line that is not
an alert is refused by that reader, for a reason its words catch; a row is the kept alert only
field for field; a dropped line counts as named only with its text and why, the file name and
the Hermes home aside; a spool counts as not replayed only with its size given; what stands
where the spool is is compared as a whole; and the alerts plugin's replay of a spool another
replayer consumed meanwhile is an empty one (the race no scenario can time). In-process, on
real files.
"""

from __future__ import annotations

import errno
import importlib
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_alerts_plugin import PKG, _load_plugin
from test_profile import profile_file, refusal

from hermetic.contract.table_reader import Alert
from hermetic.errors import HarnessError
from hermetic.parts.spool_replay import (
    BAD_LINES,
    NOT_FILES,
    KeptAlert,
    SpoolReplay,
    bad_line,
    encode,
    not_replayed_lines,
    state,
    stored_problems,
    unnamed_lines,
)
from hermetic.profile import Spool, SpoolLine, load_profile

KEPT = KeptAlert("kept-model", "custom", 410, None, "2026-11-30T08:00:00+00:00")
HOME = Path("/tmp/hermetic-sandbox-x/home")
LOG = "2026-12-01 20:00:00,000 ERROR hermetic_alerts "


@pytest.fixture(scope="module")
def plugin_spool():
    _load_plugin()
    return importlib.import_module(f"{PKG}.spool")


def _read(plugin_spool, tmp_path: Path, lines: list[str]):
    spool = plugin_spool.Spool(tmp_path)
    spool.path.write_text("".join(f"{line}\n" for line in lines), encoding="ascii")
    with spool.claim() as pending:
        return pending


def test_a_kept_alert_is_written_as_the_alerts_plugin_writes_one(plugin_spool, tmp_path) -> None:
    sighting = plugin_spool.Sighting(**KEPT.__dict__)
    assert encode(KEPT, SpoolLine()) + "\n" == plugin_spool.Spool.encode(sighting).decode()
    pending = _read(plugin_spool, tmp_path, [encode(KEPT, SpoolLine())])
    assert pending.sightings == [sighting] and not pending.rejected


def test_the_profile_renames_the_keys() -> None:
    keys = SpoolLine(model="m", seen_at="at")
    assert encode(KEPT, keys) == (
        '{"m":"kept-model","provider":"custom","error_code":410,"error_message":null,'
        '"at":"2026-11-30T08:00:00+00:00"}'
    )


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_every_kind_of_bad_line_is_refused_for_a_reason_its_words_catch(
    plugin_spool, tmp_path: Path, kind: str
) -> None:
    line = bad_line(kind, 1, SpoolLine())
    pending = _read(plugin_spool, tmp_path, [line])
    assert not pending.sightings
    [(why, raw)] = pending.rejected
    assert raw == line
    assert any(word in why.lower() for word in BAD_LINES[kind][0]), why


def test_no_bad_line_is_part_of_another() -> None:
    lines = [bad_line(kind, n, SpoolLine()) for n, kind in enumerate(BAD_LINES, 1)]
    assert not [(a, b) for a in lines for b in lines if a != b and a in b]


def test_an_unknown_kind_of_line_names_the_known_ones() -> None:
    with pytest.raises(HarnessError, match="known: a line cut short, "):
        bad_line("a poem", 1, SpoolLine())


def _row(**changes: object) -> Alert:
    fields = {
        "model": "kept-model",
        "provider": "custom",
        "error_code": 410,
        "error_message": None,
        "first_seen_at": "2026-11-30T08:00:00+00:00",
        "last_seen_at": "2026-11-30T08:00:00+00:00",
        "occurrences": 1,
    }
    return Alert(**{**fields, **changes})  # type: ignore[arg-type]


def test_the_row_must_be_the_kept_alert_field_for_field() -> None:
    assert stored_problems(KEPT, [_row()]) == []
    assert stored_problems(KEPT, [_row(first_seen_at="2026-11-30T08:00:00.000000Z")]) == []
    assert stored_problems(KEPT, []) == ["expected one alert row for 'kept-model', found 0"]
    assert stored_problems(KEPT, [_row(error_message="")]) == ["error_message='', kept as None"]
    late = "2026-12-01T20:00:00+00:00"
    assert stored_problems(KEPT, [_row(last_seen_at=late, occurrences=2)]) == [
        f"last_seen_at='{late}', kept as '2026-11-30T08:00:00+00:00'",
        "occurrences=2, kept as 1",
    ]


def test_a_dropped_line_is_named_only_with_its_text_and_why() -> None:
    line = bad_line("a line cut short", 1, SpoolLine())
    said = f"{LOG}dropped an unreadable line of pending_alerts.jsonl (not JSON): '{line}'"
    assert unnamed_lines([("a line cut short", line)], [said], "pending_alerts.jsonl", HOME) == []
    # "json" in the file's name is no reason, nor the line's own text.
    bare = f"{LOG}dropped a line of {HOME}/telemetry/pending_alerts.jsonl: '{line}'"
    [problem] = unnamed_lines([("a line cut short", line)], [bare], "pending_alerts.jsonl", HOME)
    assert problem.startswith("the error line naming a line cut short does not say why")
    [problem] = unnamed_lines([("a line cut short", line)], [], "pending_alerts.jsonl", HOME)
    assert problem.startswith("no error line names a line cut short")


def test_a_spool_is_not_replayed_only_when_its_size_is_given() -> None:
    said = (
        f"{LOG}pending alerts in {HOME}/telemetry/pending_alerts.jsonl not replayed this time: "
        f"SpoolError: [Errno 27] {HOME}/telemetry/pending_alerts.jsonl is 16777217 bytes, too large"
    )
    assert not_replayed_lines([said], "pending_alerts.jsonl", HOME) == [said]
    vague = f"{LOG}pending alerts in {HOME}/telemetry/pending_alerts.jsonl not replayed"
    assert not_replayed_lines([vague], "pending_alerts.jsonl", HOME) == []
    assert not_replayed_lines([said], "other.jsonl", HOME) == []


def test_a_link_too_long_to_follow_fails_as_no_missing_file_does(tmp_path: Path) -> None:
    path = tmp_path / "pending_alerts.jsonl"
    NOT_FILES["a link to a name too long to exist"](path)
    with pytest.raises(OSError) as caught:
        os.stat(path)
    assert caught.value.errno == errno.ENAMETOOLONG  # not ENOENT, which is_file() would hide
    before = state(path)
    path.unlink()
    path.symlink_to("y")
    assert before.startswith("a link to ") and state(path) != before


def test_a_folder_is_compared_by_its_entries(tmp_path: Path) -> None:
    path = tmp_path / "pending_alerts.jsonl"
    NOT_FILES["a folder"](path)
    before = state(path)
    (path / "x").touch()
    assert state(path) != before


def test_a_file_is_compared_by_its_content(tmp_path: Path) -> None:
    path = tmp_path / "spool"
    path.write_bytes(b"a\n")
    before = state(path)
    path.write_bytes(b"b\n")
    assert state(path) != before


def test_the_spool_line_keys_are_checked(tmp_path: Path) -> None:
    assert refusal(tmp_path, '[spool.line]\nmodel = "k"\nprovider = "k"\n') == (
        "spool.line: each field needs a key of its own, not k, k, error_code, error_message, "
        "seen_at"
    )
    assert refusal(tmp_path, '[spool.line]\nseen_at = ""\n').startswith(
        "spool.line.seen_at: must not be empty"
    )
    assert refusal(tmp_path, "[spool]\nreplay_max_bytes = 0\n") == (
        "spool.replay_max_bytes: must be a number of bytes from 1 to 1073741824, not 0"
    )
    profile = load_profile(profile_file(tmp_path, '[spool.line]\nmodel = "name"\n'))
    assert profile.spool.line.model == "name" and profile.spool.replay_max_bytes is None


def test_a_spool_another_replayer_consumed_meanwhile_is_an_empty_claim(
    plugin_spool, tmp_path: Path
) -> None:
    # The race no scenario can time (alerts_plugin/mutants.toml, spool.py:234:19): the file is
    # gone between has_pending() and the lock. Nothing to replay, and nothing raised.
    spool = plugin_spool.Spool(tmp_path)
    spool.path.write_text(encode(KEPT, SpoolLine()) + "\n", encoding="ascii")
    assert spool.has_pending()
    spool.path.unlink()  # another replayer's consume()
    with spool.claim() as pending:
        assert pending.sightings == [] and pending.rejected == []


def test_a_model_no_step_kept_is_a_harness_error(tmp_path: Path) -> None:
    world = SimpleNamespace(
        sandbox=SimpleNamespace(hermes_home=tmp_path),
        settings=SimpleNamespace(profile=SimpleNamespace(spool=Spool(file="spool.jsonl"))),
    )
    spool = SpoolReplay(world)  # type: ignore[arg-type]
    spool.keep(KEPT)
    assert spool.kept_alert("kept-model") == KEPT
    assert (tmp_path / "spool.jsonl").read_text() == encode(KEPT, SpoolLine()) + "\n"
    with pytest.raises(HarnessError, match="no earlier step kept an alert for 'other'"):
        spool.kept_alert("other")

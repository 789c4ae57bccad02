"""A file the plugin writes under HERMES_HOME, read one way by the file and log channels
(hermetic.channels.home_file_reader): its text, the line for a file never written, its evidence."""

from __future__ import annotations

from pathlib import Path

from hermetic.channels.channel import Sources
from hermetic.channels.file import FileChannel, FileSettings
from hermetic.channels.home_file_reader import HomeFile
from hermetic.channels.log import LogChannel, LogSettings


def test_a_home_file_is_named_read_and_missed_one_way(tmp_path: Path) -> None:
    journal = HomeFile(tmp_path, "watch/alerts.log")
    assert journal.where == "HERMES_HOME/watch/alerts.log"
    assert journal.text() is None
    assert journal.missing() == (
        "HERMES_HOME/watch/alerts.log does not exist: the plugin wrote no alert there"
    )
    (tmp_path / "watch").mkdir()
    (tmp_path / "watch" / "alerts.log").write_bytes(b"gone-model \xff\n")
    assert journal.text() == "gone-model \ufffd\n"  # bytes that are not UTF-8: replaced
    assert journal.missing() is None
    [evidence] = journal.evidence("log")
    assert (evidence.title, evidence.artefact, evidence.tail_lines) == (
        "HERMES_HOME/watch/alerts.log",
        "log-channel-alerts.log",
        200,
    )


def test_the_file_and_log_channels_say_the_same_of_a_file_never_written(tmp_path: Path) -> None:
    sources = Sources(hermes_home=tmp_path)
    file = FileChannel(FileSettings(channel="file", path="x/a.jsonl"), sources)
    log = LogChannel(LogSettings(channel="log", path="x/a.jsonl", pattern="(?P<model>m)"), sources)
    assert file.absence() == log.absence() == HomeFile(tmp_path, "x/a.jsonl").missing()
    assert [e.artefact for e in (*file.evidence(), *log.evidence())] == [
        "file-channel-a.jsonl",
        "log-channel-a.jsonl",
    ]

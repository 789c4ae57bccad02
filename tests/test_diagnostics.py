"""The failure report: sandbox path first, tails of every artefact, never an exception."""

from __future__ import annotations

from pathlib import Path

from hermetic.diagnostics.evidence import Evidence, failure_report
from hermetic.diagnostics.text_tail import tail
from hermetic.hermes.commands import CommandResult


def test_report_names_the_sandbox_and_tails_each_artefact(tmp_path: Path) -> None:
    out, err = tmp_path / "1.stdout", tmp_path / "1.stderr"
    out.write_text("".join(f"line {n}\n" for n in range(100)))
    err.write_text("")
    log = tmp_path / "telemetry.log"
    log.write_text("model-unavailable 404 captured: model='m' provider='custom'\n")
    command = CommandResult(("cron", "tick"), 0, 2.5, out, err)

    def broken_journal() -> str:
        raise RuntimeError("mock already stopped")

    report = failure_report(
        sandbox_root=tmp_path,
        last_command=command,
        evidence=[
            Evidence("telemetry.log", lambda: log),
            Evidence("agent.log", lambda: tmp_path / "missing.log"),
            Evidence("jobs", lambda: "job-1: last_status=error"),
            Evidence("nothing yet", lambda: None),
            Evidence("mock provider request journal", broken_journal),
        ],
    )
    assert report.startswith(f"sandbox: {tmp_path}\n")
    assert "`hermes cron tick` exited 0 after 2.5s: stdout" in report
    assert "line 99" in report and "line 10\n" not in report
    assert "captured: model='m'" in report
    assert f"(no file {tmp_path / 'missing.log'})" in report
    assert "job-1: last_status=error" in report
    assert "(unavailable: mock already stopped)" in report
    assert "nothing yet" not in report


def test_tail_reads_only_the_end_of_a_huge_file(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * 5_000_000 + b"\nlast line\n")
    assert tail(big, 1) == "last line"
    empty = tmp_path / "empty.log"
    empty.write_text("")
    assert tail(empty) == "(empty)"


def test_a_report_carries_only_what_xml_can(tmp_path: Path) -> None:
    # A collector that cannot read gzip showed the raw body; behave's JUnit file then did not parse.
    from xml.etree import ElementTree
    from xml.sax.saxutils import quoteattr

    body = b"\x1f\x8b\x08\x00\x04c\tline\n".decode("utf-8", "replace") + "\ufffe"
    report = failure_report(
        sandbox_root=tmp_path, last_command=None, evidence=[Evidence("collector", lambda: body)]
    )
    assert "\\x1f\ufffd\\x08\\x00\\x04c\tline" in report and report.endswith("\\ufffe")
    ElementTree.fromstring(f"<failure message={quoteattr(report)}/>")

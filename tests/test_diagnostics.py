"""The failure report: sandbox path first, tails of every artefact, never an exception."""

from __future__ import annotations

from pathlib import Path

from hermetic.diagnostics.evidence import Evidence, failure_report
from hermetic.diagnostics.text_tail import tail
from hermetic.hermes.run.commands import CommandResult


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


HERMES_STDERR = "".join(
    [
        "[plugins] INFO Plugin discovery complete: 54 found, 47 enabled\n",
        *(f"[plugins] DEBUG Registered deferred platform loader: p{n}\n" for n in range(30)),
        "2026-12-02 06:46:04,875 DEBUG agent.loop: detail\n",
        "2026-12-02 06:46:05,000 WARNING my_plugin: could not send\n",
        "[plugins] DEBUG   registered: 0 tool(s), 1 hook(s)\n",
    ]
)


def test_hermes_debug_lines_are_left_out_of_an_excerpt_unless_asked(tmp_path, monkeypatch):
    err = tmp_path / "1.stderr"
    err.write_text(HERMES_STDERR)
    monkeypatch.delenv("HERMETIC_REPORT_DEBUG", raising=False)
    assert tail(err, 5, hermes_output=True).splitlines() == [
        "(32 DEBUG line(s) of Hermes left out; HERMETIC_REPORT_DEBUG=1 keeps them)",
        "[plugins] INFO Plugin discovery complete: 54 found, 47 enabled",
        "2026-12-02 06:46:05,000 WARNING my_plugin: could not send",
    ]
    # Another file (the plugin's own log) keeps every line; so does an excerpt when asked.
    assert tail(err, 3).splitlines()[-1] == "[plugins] DEBUG   registered: 0 tool(s), 1 hook(s)"
    monkeypatch.setenv("HERMETIC_REPORT_DEBUG", "1")
    assert tail(err, 3, hermes_output=True) == tail(err, 3)


def test_the_report_s_excerpts_of_hermes_output_leave_debug_out(tmp_path, monkeypatch):
    monkeypatch.delenv("HERMETIC_REPORT_DEBUG", raising=False)
    out, err = tmp_path / "1.stdout", tmp_path / "1.stderr"
    out.write_text("")
    err.write_text(HERMES_STDERR)
    log = tmp_path / "agent.log"
    log.write_text("2026-12-02 06:46:04,875 DEBUG x: y\n2026-12-02 06:46:05,000 ERROR x: z\n")
    own = tmp_path / "telemetry.log"
    own.write_text("2026-12-02 06:46:04,875 DEBUG hermetic_alerts not a model-unavailable\n")
    report = failure_report(
        sandbox_root=tmp_path,
        last_command=CommandResult(("cron", "tick"), 0, 2.5, out, err),
        evidence=[
            Evidence("agent.log", lambda: log, hermes_output=True),
            Evidence("telemetry.log", lambda: own),
        ],
    )
    assert "Registered deferred platform loader" not in report
    assert "could not send" in report and "ERROR x: z" in report and "DEBUG x: y" not in report
    assert "DEBUG hermetic_alerts not a model-unavailable" in report

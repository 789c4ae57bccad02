"""``hermetic collector``: serves on loopback until a signal; usage errors are one line, exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request

import pytest

from hermetic.cli import main

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def test_a_non_loopback_host_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["collector", "--host", "192.0.2.1"]) == 2  # refused before any bind
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "hermetic collector: error: refusing to listen on '192.0.2.1': the collector binds "
        "loopback only (use 127.0.0.1, ::1 or localhost)"
    )


def test_a_bad_port_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["collector", "--port", "many"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.startswith("hermetic collector: error: argument --port")


def test_it_prints_its_url_journals_requests_and_stops_on_ctrl_c() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from hermetic.cli import main; raise SystemExit(main())",
            "collector",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        request = urllib.request.Request(
            url + "/v1/traces",
            data=json.dumps({}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with _OPENER.open(request, timeout=10) as answer:
            assert answer.status == 200
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 0
    assert "POST /v1/traces -> 200" in err

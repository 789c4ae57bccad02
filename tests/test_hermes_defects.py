"""The 0.22 rows of the defects table: identified by Hermes' own lines and by the failure they
cause, and never hiding a failure of the plugin in the same scenario."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from behave.model_type import Status
from fakes import AlertRecords

from hermetic.known import defects, settle
from hermetic.known.explained import HERMES_DEFECT
from hermetic.known.settle import explain

V22 = "0.22.2.post1"
ROTATION = (
    "2026-12-01 08:31:49,100 INFO [cron_8b8c41e51277] run_agent: OpenAI client created "
    "(credential_rotation, shared=False) thread=ThreadPoolExecutor-1_0:1397 provider=nous "
    "base_url=https://inference-api.nousresearch.com/v1 model=scheduled-model"
)
TOO_FEW = (
    "Assertion Failed: expected 2 chat requests for 'scheduled-model', the provider received 1"
)
SHUTDOWN = (
    "2026-12-01 08:39:40,721 WARNING gateway.run: Shutdown context: signal=SIGINT "
    "under_systemd=no parent_pid=20887 parent_name=python loadavg_1m=29.35"
)
DIAGNOSTIC = (
    "/usr/bin/timeout 5 bash -c echo '=== shutdown diagnostic @ SIGINT ==='; echo '--- date ---'"
)
DIAGNOSTIC_SHELL = "bash -c echo '=== shutdown diagnostic @ SIGINT ==='; echo '--- date ---'"
LEFT_RUNNING = (
    f"Assertion Failed: processes of this sandbox still running: 23454 {DIAGNOSTIC}; "
    f"23456 {DIAGNOSTIC_SHELL}"
)


def by_name(name: str) -> defects.HermesDefect:
    return next(defect for defect in defects.DEFECTS if defect.name == name)


def world(
    tmp_path: Path,
    lines: str,
    processes: list[list[str]] | None = None,
    stored: int = 1,
    findings: tuple[str, ...] = (),
) -> SimpleNamespace:
    """A scenario's world: Hermes' log ``lines``; ``processes``, the sandbox's processes as
    each successive look finds them (the last one stays); the suite's own ``findings``."""
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True, exist_ok=True)
    (home / "logs" / "agent.log").write_text(lines + "\n", "utf-8")
    looks = list(processes or [[]])

    def leftover_processes() -> list[SimpleNamespace]:
        found = looks.pop(0) if len(looks) > 1 else looks[0]
        return [SimpleNamespace(pid=100 + i, command=c) for i, c in enumerate(found)]

    records = AlertRecords(captures=1, stored=stored)
    return SimpleNamespace(
        sandbox=SimpleNamespace(out_dir=tmp_path / "out", hermes_home=home),
        leftover_processes=leftover_processes,
        use=lambda part: records,
        checks=SimpleNamespace(
            deferred=lambda: [SimpleNamespace(kind="network", message=m) for m in findings]
        ),
    )


def failed_at(message: str) -> SimpleNamespace:
    step = SimpleNamespace(status=Status.failed, error_message=message)
    return SimpleNamespace(name="S", effective_tags=[], steps=[step], hook_failed=False)


def settings(version: str = V22) -> SimpleNamespace:
    return SimpleNamespace(
        hermes_version=version, profile=SimpleNamespace(baseline=(), path="hermetic.toml")
    )


# -- the Nous login renewal ---------------------------------------------------------------------


def test_the_renewal_to_production_is_identified_by_the_line_hermes_logs() -> None:
    found = defects.identify(V22, [ROTATION], steps=[TOO_FEW])
    assert found is not None and found.name.startswith("Nous login renewal")
    assert found.headline(V22).startswith(f"Hermes {V22}'s own defect (Nous login renewal")
    assert defects.identify("0.19.0", [ROTATION], steps=[TOO_FEW]) is None  # not known there
    # A rotation to the loopback stand-in is what should happen: no defect.
    local = ROTATION.replace("https://inference-api.nousresearch.com", "http://127.0.0.1:4000")
    assert defects.identify(V22, [local], steps=[TOO_FEW]) is None


def test_a_plugin_failure_beside_the_renewal_defect_is_still_the_plugins(tmp_path: Path) -> None:
    hit = world(tmp_path, ROTATION)
    found = explain(failed_at(TOO_FEW), hit, settings())
    assert found is not None and found.status == HERMES_DEFECT
    # Another failure in the same scenario (the plugin's alert is wrong) is not this defect.
    wrong = "Assertion Failed: expected the alert to name the model 'scheduled-model', got ''"
    assert explain(failed_at(wrong), hit, settings()) is None
    # The defect's own failure, but the plugin lost an alert it captured: the plugin's.
    lost = world(tmp_path, ROTATION, stored=0)
    assert explain(failed_at(TOO_FEW), lost, settings()) is None


def test_the_guards_refusal_of_the_production_host_is_the_defects_too(tmp_path: Path) -> None:
    refused = (
        "Hermes tried to reach beyond loopback (the run must stay on this machine; every "
        "attempt was refused):\n"
        "  resolve inference-api.nousresearch.com:443 REFUSED (pid 20514, from Hermes' own "
        "code: hermes_bootstrap.py:63 _happy_eyeballs_create_connection)"
    )
    hit = world(tmp_path, ROTATION, findings=(refused,))
    found = explain(failed_at(TOO_FEW), hit, settings())
    assert found is not None and found.status == HERMES_DEFECT
    # The plugin phoning home in the same run is never hidden behind the defect.
    home = "\n  connect telemetry.example.com:443 REFUSED (pid 20514, from the plugin under test: "
    plugin = world(tmp_path, ROTATION, findings=(refused + home + "p/__init__.py:3)",))
    assert explain(failed_at(TOO_FEW), plugin, settings()) is None
    # Nor is any other finding of the suite's checks (a hook abandoned for its slowness).
    late = "Hook 'api_request_error' callback p.on_error timed out after 30s"
    assert (
        explain(failed_at(TOO_FEW), world(tmp_path, ROTATION, findings=(late,)), settings()) is None
    )


# -- the gateway's shutdown diagnostic ----------------------------------------------------------


def test_the_shutdown_diagnostic_is_identified_and_waited_for(tmp_path: Path) -> None:
    diagnostic = by_name("gateway shutdown diagnostic outlives the gateway")
    assert diagnostic.leaves(DIAGNOSTIC) and diagnostic.leaves(DIAGNOSTIC_SHELL)
    assert not diagnostic.leaves("/venv/bin/python /venv/bin/hermes gateway run")
    # Still running at the first look, gone at the next: the promise held after its own exit.
    passing = world(tmp_path, SHUTDOWN, [[DIAGNOSTIC, DIAGNOSTIC_SHELL], [DIAGNOSTIC], []])
    found = explain(failed_at(LEFT_RUNNING), passing, settings())
    assert found is not None and found.status == HERMES_DEFECT
    assert "shutdown diagnostic" in found.reason


def test_a_process_the_plugin_left_beside_the_diagnostic_is_still_the_plugins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin_child = "/venv/bin/python -c import alerts_plugin.worker"
    left = world(tmp_path, SHUTDOWN, [[DIAGNOSTIC, plugin_child], [plugin_child]])
    assert explain(failed_at(LEFT_RUNNING + f"; 300 {plugin_child}"), left, settings()) is None
    assert "does not explain this failure: processes of this sandbox still running: " in (
        capsys.readouterr().out
    )
    # Hermes' lines alone do not make a defect of a failure that is not the diagnostic's.
    other = "Assertion Failed: expected the gateway to exit 0; `hermes gateway run` exited 1"
    assert explain(failed_at(other), world(tmp_path, SHUTDOWN), settings()) is None
    assert explain(failed_at(LEFT_RUNNING), world(tmp_path, SHUTDOWN), settings("0.19.0")) is None


def test_a_diagnostic_that_never_ends_is_a_broken_promise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settle, "_PASSING_WAIT", 0.0)
    stuck = world(tmp_path, SHUTDOWN, [[DIAGNOSTIC]])
    assert explain(failed_at(LEFT_RUNNING), stuck, settings()) is None


def test_a_defect_that_names_no_failure_never_explains_the_suites_own_findings(
    tmp_path: Path,
) -> None:
    race = "2026-12-01 07:00:00 INFO gateway.run: Received UNKNOWN — initiating shutdown"
    assert explain(failed_at("exit 1"), world(tmp_path, race), settings("0.19.0")) is not None
    beside = world(tmp_path, race, findings=("Hermes tried to reach beyond loopback: ...",))
    assert explain(failed_at("exit 1"), beside, settings("0.19.0")) is None

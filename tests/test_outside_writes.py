"""hermetic.isolation.guard.outside: a command's writes to the watched places land in its
sandbox, never on the host, and are listed; the sandbox and the suite's own folders stay real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hermetic.isolation.guard import outside
from hermetic.isolation.guard.outside import (
    confinement,
    outside_files,
    outside_writes,
    unavailable,
)


def run(sandbox: Path, places: list[Path], keep: list[Path], script: str) -> int:
    command = [sys.executable, "-I", "-S", outside.__file__, str(sandbox)]
    for place in places:
        command += ["--place", str(place)]
    for folder in keep:
        command += ["--keep", str(folder)]
    return subprocess.run([*command, "--", "sh", "-c", script], check=False).returncode


def test_writes_to_a_watched_place_stay_in_the_sandbox(tmp_path: Path) -> None:
    place = tmp_path / "tmp"
    place.mkdir()
    (place / "host.txt").write_text("the host's\n")
    # As under /tmp: the sandbox and a folder of the suite's own lie inside the watched place.
    sandbox, keep = place / "sandbox", place / "coverage"
    sandbox.mkdir()
    keep.mkdir()
    script = (
        f"mkdir -p {place}/acme && echo alert > {place}/acme/alerts.log && "
        f"rm {place}/host.txt && echo in > {sandbox}/in && echo k > {keep}/k && "
        f"mkdir {place}/empty"
    )
    assert run(sandbox, [place], [keep], script) == 0
    why = unavailable(sandbox)
    if why:
        pytest.skip(f"no mount namespace here: {why}")
    assert (sandbox / "in").read_text() == "in\n"
    assert (keep / "k").read_text() == "k\n"
    assert (place / "host.txt").read_text() == "the host's\n"
    assert not (place / "acme").exists() and not (place / "empty").exists()
    assert outside_writes(sandbox) == [
        (f"{place}/acme/alerts.log", "wrote 6 bytes"),
        (f"{place}/empty", "made the folder"),
        (f"{place}/host.txt", "deleted"),
    ]
    ((seen, _, real),) = outside_files(sandbox)
    assert (seen, real.read_text()) == (f"{place}/acme/alerts.log", "alert\n")


def test_a_run_that_writes_nothing_outside_lists_nothing(tmp_path: Path) -> None:
    place = tmp_path / "tmp"
    sandbox = tmp_path / "sandbox"
    place.mkdir()
    sandbox.mkdir()
    assert run(sandbox, [place], [], f"cat /dev/null > {sandbox}/in") == 0
    assert outside_writes(sandbox) == []


def test_the_prefix_names_the_temp_folders_the_homes_and_the_suite_s_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/dev")
    for name in outside.CI_WORKSPACES:
        monkeypatch.delenv(name, raising=False)
    prefix = confinement(tmp_path, "/venv/bin/python", [str(tmp_path / "cov")])
    assert prefix[:4] == ["/venv/bin/python", "-I", "-S", outside.__file__]
    assert prefix[4:] == [
        str(tmp_path),
        "--place",
        "/tmp",
        "--place",
        "/var/tmp",
        "--hide",
        "/home/dev",
        "--hide",
        "/root",
        "--hide",
        "/home",
        "--keep",
        str(tmp_path / "cov"),
        "--",
    ]


def test_a_malformed_call_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-I", "-S", outside.__file__, str(tmp_path), "--what", "x", "--", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("usage: outside.py SANDBOX")


def test_a_place_inside_another_is_overlaid_with_it(tmp_path: Path) -> None:
    outer = tmp_path / "tmp"
    inner = outer / "home"
    sandbox = tmp_path / "sandbox"
    inner.mkdir(parents=True)
    sandbox.mkdir()
    assert run(sandbox, [outer, inner], [], f"echo x > {inner}/.acme") == 0
    if unavailable(sandbox):
        pytest.skip(f"no mount namespace here: {unavailable(sandbox)}")
    assert outside_writes(sandbox) == [(f"{inner}/.acme", "wrote 2 bytes")]
    assert not (inner / ".acme").exists()


def test_without_a_mount_namespace_the_command_runs_and_the_reason_is_kept(
    tmp_path: Path,
) -> None:
    # A user namespace that maps no one: no privilege to make a mount namespace in it.
    try:
        probe = subprocess.run(["unshare", "--user", "true"], capture_output=True, check=False)
    except FileNotFoundError:
        pytest.skip("no unshare program here")
    if probe.returncode != 0:
        pytest.skip(f"no user namespace here: {probe.stderr.decode(errors='replace').strip()}")
    place, sandbox = tmp_path / "tmp", tmp_path / "sandbox"
    place.mkdir()
    sandbox.mkdir()
    command = [sys.executable, "-I", "-S", outside.__file__, str(sandbox), "--place", str(place)]
    script = f"echo ran > {sandbox}/ran"
    result = subprocess.run(
        ["unshare", "--user", *command, "--", "sh", "-c", script],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert (sandbox / "ran").read_text() == "ran\n"
    assert unavailable(sandbox) == "no mount namespace: Operation not permitted"
    assert outside_writes(sandbox) == []


def test_a_hidden_home_is_empty_but_for_what_is_shown_read_only(tmp_path: Path) -> None:
    home, sandbox = tmp_path / "home", tmp_path / "sandbox"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("the developer's key\n")
    (home / ".cache" / "envs" / "hermes").mkdir(parents=True)
    (home / ".cache" / "envs" / "hermes" / "python").write_text("Hermes' own\n")
    sandbox.mkdir()
    command = [sys.executable, "-I", "-S", outside.__file__, str(sandbox), "--hide", str(home)]
    command += ["--show", str(home / ".cache" / "envs" / "hermes"), "--"]
    script = (
        f"ls -A {home} {home}/.cache/envs; cat {home}/.cache/envs/hermes/python; "
        f"cat {home}/.ssh/id_ed25519; touch {home}/.cache/envs/hermes/x || echo read-only; "
        f"echo mine > {home}/notes.txt"
    )
    done = subprocess.run([*command, "sh", "-c", script], capture_output=True, text=True)
    why = unavailable(sandbox)
    if why:
        pytest.skip(f"no mount namespace here: {why}")
    assert "the developer's key" not in done.stdout
    assert done.stdout.split() == [
        f"{home}:",
        ".cache",
        f"{home}/.cache/envs:",
        "hermes",
        "Hermes'",
        "own",
        "read-only",
    ]
    assert not (home / "notes.txt").exists() and not (home / ".cache/envs/hermes/x").exists()
    assert outside_writes(sandbox) == [(f"{home}/notes.txt", "wrote 5 bytes")]

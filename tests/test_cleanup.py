"""``hermetic clean``: stale environments and kept sandboxes listed with their sizes, removed
only with ``--yes``, and nothing else ever touched."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

import pytest

from hermetic.cli import main
from hermetic.hermes.install import cleanup
from hermetic.hermes.install.cleanup import KEPT_MARK, find_leftovers, mark_kept, remove

DAY = 86_400


def _env(
    root: Path, name: str, days_unused: float, stamp: str = ".hermetic-install.json", **extra: str
) -> Path:
    folder = root / name
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_bytes(b"x" * 1000)
    path = folder / stamp
    path.write_text(json.dumps({"requirements": ["hermes-agent==0.19.0"], **extra}))
    then = time.time() - days_unused * DAY
    os.utime(path, (then, then))
    (root / f"{name}.lock").write_text("")
    return folder


@pytest.fixture
def envs(tmp_path: Path) -> Path:
    root = tmp_path / "envs"
    root.mkdir()
    return root


def _listed(envs: Path, sandboxes: Path, **options: object) -> dict[str, str]:
    found = find_leftovers(envs, [sandboxes], old_envs=envs / "none", **options)  # type: ignore[arg-type]
    return {item.path.name: item.why for item in found}


def test_only_what_hermetic_made_and_nothing_needs_is_listed(envs: Path, tmp_path: Path) -> None:
    sandboxes = tmp_path / "tmp"
    sandboxes.mkdir()
    base = _env(envs, "hermes-0.19.0", days_unused=1)
    _env(envs, "hermes-0.16.0", days_unused=40)
    _env(envs, "hermes-0.19.0+plugin-aaa", 1, ".hermetic-plugin.json", base=str(base))
    _env(envs, "hermes-0.19.0+plugin-bbb", 1, ".hermetic-plugin.json", base="/gone/hermes-0.1")
    (envs / "hermes-0.17.0.partial-x1").mkdir()  # a killed install
    (envs / "hermes-0.99.0.install.log").write_text("ERROR: No matching distribution\n")
    (envs / "hermes-0.18.2").mkdir()  # made before stamps were written last
    (envs / "notes.txt").write_text("the user's own file")
    kept = sandboxes / "hermetic-abc123"
    (kept / "hermes").mkdir(parents=True)
    mark_kept(kept, "scenario 'A removed model raises an alert' failed")
    (sandboxes / "hermetic-running").mkdir()  # a sandbox a run is using: no mark
    (sandboxes / "someone-else").mkdir()
    listed = _listed(envs, sandboxes)
    assert listed == {
        "hermes-0.16.0": "an environment unused for 40 days",
        "hermes-0.19.0+plugin-bbb": (
            "a plugin's environment whose Hermes (/gone/hermes-0.1) is gone"
        ),
        "hermes-0.17.0.partial-x1": "left by an install that was interrupted",
        "hermes-0.99.0.install.log": "the log of an install that did not complete",
        "hermes-0.18.2": "not a complete environment (no stamp)",
        "hermetic-abc123": (
            "a sandbox kept 0 minutes ago (scenario 'A removed model raises an alert' failed)"
        ),
    }
    everything = _listed(envs, sandboxes, everything=True)
    assert {"hermes-0.19.0", "hermes-0.19.0+plugin-aaa"} <= set(everything)
    assert not {"notes.txt", "hermetic-running", "someone-else"} & set(everything)


def test_an_install_running_now_is_left_alone(envs: Path, tmp_path: Path) -> None:
    (envs / "hermes-0.17.0.partial-x1").mkdir()
    with (envs / "hermes-0.17.0.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert _listed(envs, tmp_path) == {}
    assert "hermes-0.17.0.partial-x1" in _listed(envs, tmp_path)


def test_sizes_count_each_file_once_and_what_stays_linked_apart(envs: Path, tmp_path: Path) -> None:
    base = _env(envs, "hermes-0.16.0", days_unused=40)
    clone = _env(envs, "hermes-0.16.0+plugin-a", 40, ".hermetic-plugin.json", base=str(base))
    (clone / "bin" / "python").unlink()
    os.link(base / "bin" / "python", clone / "bin" / "python")
    keeper = tmp_path / "kept-elsewhere"
    os.link(base / "bin" / "python", keeper)  # a third link, outside what is listed
    sizes = {
        item.path.name: (item.size, item.shared)
        for item in find_leftovers(envs, [tmp_path / "none"], old_envs=envs / "none")
    }
    stamp = len((base / ".hermetic-install.json").read_bytes())
    plugin_stamp = len((clone / ".hermetic-plugin.json").read_bytes())
    assert sizes == {"hermes-0.16.0": (stamp, 1000), "hermes-0.16.0+plugin-a": (plugin_stamp, 1000)}
    keeper.unlink()
    sizes = {
        item.path.name: item.size
        for item in find_leftovers(envs, [tmp_path / "none"], old_envs=envs / "none")
    }
    assert sizes == {"hermes-0.16.0": stamp + 1000, "hermes-0.16.0+plugin-a": plugin_stamp}


def test_removing_an_environment_takes_its_lock_and_log(envs: Path, tmp_path: Path) -> None:
    folder = _env(envs, "hermes-0.16.0", days_unused=40)
    (envs / "hermes-0.16.0.install.log").write_text("")
    (item,) = find_leftovers(envs, [tmp_path / "none"], old_envs=envs / "none")
    remove(item)
    assert not folder.exists() and list(envs.iterdir()) == []


def test_hermetic_clean_lists_and_removes_only_with_yes(
    envs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HERMETIC_ENVS", str(envs))
    # not the checkout's own .hermetic-envs (the old default), which a developer may still have
    monkeypatch.setattr(cleanup, "_old_envs_folder", lambda: None)
    _env(envs, "hermes-0.16.0", days_unused=40)
    kept = tmp_path / "hermetic-k1"
    kept.mkdir()
    (kept / KEPT_MARK).write_text(json.dumps({"kept_at": time.time() - 3 * DAY}))
    assert main(["clean", "--sandbox-root", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(f"{envs / 'hermes-0.16.0'}  (an environment unused for 40 days)")
    assert out[1].endswith(f"{kept}  (a sandbox kept 3 days ago)")
    assert out[2].startswith("hermetic clean: 2 to remove, ")
    assert out[2].endswith("nothing removed: `hermetic clean --yes` removes them")
    assert (envs / "hermes-0.16.0").exists() and kept.exists()
    assert main(["clean", "--yes", "--sandbox-root", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("removed ") and out[-1].startswith("hermetic clean: removed 2, ")
    assert not (envs / "hermes-0.16.0").exists() and not kept.exists()
    # Only the folders of this test: the machine's TMPDIR may hold other runs' kept sandboxes.
    assert main(["clean", "--sandbox-root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("hermetic clean: nothing to remove")


def test_the_old_environments_folder_is_listed_once_unused(tmp_path: Path) -> None:
    envs, old = tmp_path / "envs", tmp_path / ".hermetic-envs"
    (old / "hermes-0.19.0" / "bin").mkdir(parents=True)
    (old / "hermes-0.19.0" / "bin" / "python").write_bytes(b"x" * 10)
    (item,) = find_leftovers(envs, [tmp_path / "none"], old_envs=old)
    assert (item.path, item.why, item.size) == (
        old,
        f"where hermetic kept environments before {envs}",
        10,
    )
    in_use = find_leftovers(old, [tmp_path / "none"], old_envs=old)  # HERMETIC_ENVS names it
    assert old not in [item.path for item in in_use]


def test_a_bad_option_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["clean", "--sandbox-root", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == (
        f"hermetic: --sandbox-root {tmp_path / 'nope'}: not an existing directory\n"
    )


def test_a_sandbox_kept_for_a_failed_scenario_is_marked_for_clean(tmp_path: Path) -> None:
    """build_world marks a sandbox it keeps; one it removes is gone, and a live one has no mark."""
    from hermetic.plan.resolve import settings_from_userdata
    from hermetic.world import build_world

    plugin = Path(__file__).resolve().parent.parent / "alerts_plugin"
    settings = settings_from_userdata({"plugin": str(plugin), "sandbox_root": str(tmp_path)})
    kept: list[Path] = []
    with build_world(settings, keep=lambda: True, on_kept=kept.append) as world:
        assert not (world.sandbox.root / KEPT_MARK).exists()
    (root,) = kept
    about = json.loads((root / KEPT_MARK).read_text())
    assert about["reason"] == "its scenario failed"
    listed = find_leftovers(tmp_path / "envs", [tmp_path], old_envs=tmp_path / "none")
    assert [item.path for item in listed] == [root]

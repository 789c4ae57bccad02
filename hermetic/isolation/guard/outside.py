"""What a ``hermes`` process wrote outside its sandbox, seen by the kernel, and kept off the host.

A plugin that writes to a fixed path (``/tmp/acme/alerts.log``, ``/root/.acme/queue.db``)
escapes the sandbox: the run leaves files on the developer's machine, and the alerts the
scenario looks for are not where the profile reads them. Every ``hermes`` command of a scenario
therefore runs in a mount namespace of its own (:func:`main`, run as a script before Hermes:
``python -I -S outside.py SANDBOX --place /tmp … -- hermes …``; :func:`confinement` builds
that prefix) in which the places a fixed path lands are overlays. In the temp folders
(``/tmp`` and ``/var/tmp``) the host's content shows through, and whatever any process writes
there, Python or not, lands in an upper layer inside the sandbox (``outside/<n>/upper``), never
on the host. The homes (the real home of the user running the suite, ``/root``, ``/home`` with
every other user's home and a CI runner's work folders, a CI job's workspace) are *hidden*:
overlays over an empty folder, so a plugin reads nothing of them (keys, a CI checkout's token)
while its writes there are caught the same way; what Hermes needs from under them (its
environment, the Python it was made from, the loopback guard, a pip plugin's code: ``--show``)
is bound back read-only.
The sandbox itself and the suite's own folders stay the real ones. After the run,
:func:`outside_writes` lists what the upper layers hold: each a path as the process saw it.

The namespace needs a user namespace in which the suite is root (the network namespace the runs
already use: ``hermetic.isolation.netns``) and overlayfs in it (Linux 5.11 or later). Where
that cannot be made, the command runs as before and :func:`unavailable` says why.

The script half uses only the standard library: it runs before Hermes, in Hermes' interpreter
of choice, with nothing of the suite importable.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

#: Under the sandbox: one folder per overlaid place, and the record of which is which.
OUTSIDE = "outside"
PLACES = "places.json"
UNAVAILABLE = "unavailable.txt"
# Python's own byte code (an import that compiles a module of an environment under the home):
# the interpreter's cache, not a write of the plugin's.
_NOT_WRITES = ("__pycache__",)
_CLONE_NEWNS = 0x00020000
_MS_RDONLY = 1
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18


USAGE = (
    "usage: outside.py SANDBOX [--place DIR …] [--hide DIR …] [--show DIR …] [--keep DIR …] "
    "[--view PID] -- COMMAND …"
)
_FLAGS = ("--place", "--hide", "--show", "--keep", "--view")


def main(argv: list[str]) -> int:
    """Run COMMAND (exec: the same process) with each ``--place`` overlaid, each ``--hide``
    folder empty but for the ``--show`` folders inside it (read-only); SANDBOX and every
    ``--keep`` folder (the suite's own, such as a coverage folder) stay the real ones. With
    ``--view PID``, COMMAND runs in the PID namespace whose first process is PID, with that
    namespace's ``/proc`` (:mod:`process_view`: this process stays outside, as its parent)."""
    try:
        split = argv.index("--")
        sandbox, options, command = argv[0], argv[1:split], argv[split + 1 :]
        pairs = list(zip(options[::2], options[1::2], strict=True))
    except (ValueError, IndexError):
        print(USAGE, file=sys.stderr)
        return 2
    if not command or any(flag not in _FLAGS for flag, _ in pairs):
        print(USAGE, file=sys.stderr)
        return 2
    places = _outermost(
        os.path.realpath(p) for flag, p in pairs if flag == "--place" and os.path.isdir(p)
    )
    hidden = _outermost(
        os.path.realpath(p) for flag, p in pairs if flag == "--hide" and os.path.isdir(p)
    )
    places = [place for place in places if place not in hidden]
    shown = [os.path.realpath(p) for flag, p in pairs if flag == "--show" and os.path.isdir(p)]
    keep = [sandbox, *(path for flag, path in pairs if flag == "--keep")]
    outside = Path(sandbox) / OUTSIDE
    view = _process_view()
    views = [path for flag, path in pairs if flag == "--view"]
    joined = False
    if views:
        try:
            view.join(sandbox, views[-1])  # from here on: the child, inside
            joined = True
        except view.NoView as exc:
            view.say_unavailable(sandbox, str(exc))
    try:
        _isolate(keep, places, outside, hidden, shown)
        if joined:
            view.own_proc()
    except _NoNamespace as exc:
        outside.mkdir(parents=True, exist_ok=True)
        (outside / UNAVAILABLE).write_text(f"{exc}\n", "utf-8")
        if views:
            view.say_unavailable(sandbox, f"no /proc of its own without a mount namespace ({exc})")
    except view.NoView as exc:
        view.say_unavailable(sandbox, str(exc))
    except OSError as exc:
        # Half made: the sandbox may be hidden behind an overlay. Running Hermes now would
        # write its home where nobody looks; stop, saying why.
        print(
            f"hermetic: cannot keep writes outside the sandbox off the host: {exc}", file=sys.stderr
        )
        return 2
    os.execvp(command[0], command)
    return 127  # not reached


def _process_view():  # type: ignore[no-untyped-def]
    """The sibling module, imported as this script runs (``python -I`` puts no folder of ours on
    ``sys.path``)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import process_view  # type: ignore[import-not-found]

    return process_view


def _outermost(places: Iterable[str]) -> list[str]:
    """The places, each once, without those inside another (its overlay already holds them)."""
    unique = list(dict.fromkeys(place for place in places if place != "/"))
    return [
        place
        for place in unique
        if not any(place.startswith(other.rstrip("/") + "/") for other in unique)
    ]


class _NoNamespace(Exception):
    """No mount namespace can be made here (no privilege in a user namespace, no overlayfs)."""


def _isolate(
    keep: list[str],
    places: list[str],
    outside: Path,
    hidden: list[str] = (),  # type: ignore[assignment]
    shown: list[str] = (),  # type: ignore[assignment]
) -> None:
    try:  # Linux's C library; another system, or a Python without ctypes, runs without
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare, libc.mount  # noqa: B018 (looked up now: missing, they raise here)
    except (ImportError, OSError, AttributeError) as exc:
        raise _NoNamespace(f"no mount namespace: {exc}") from None

    def call(result: int, what: str) -> None:
        if result != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"{what}: {os.strerror(error)}")

    # Made before any overlay hides them. A hidden place's lower layer is an empty folder
    # holding only the folders that are bound back into it (where they are mounted).
    overlaid = [*places, *hidden]
    kept_paths = [os.path.realpath(path) for path in keep]
    layers = []
    for index, place in enumerate(overlaid):
        layer = outside / str(index)
        (layer / "upper").mkdir(parents=True, exist_ok=True)
        (layer / "work").mkdir(parents=True, exist_ok=True)
        lower = place
        if place in hidden:
            lower = str(layer / "lower")
            os.makedirs(lower, exist_ok=True)
            for path in (*kept_paths, *shown):
                if _inside(path, place):
                    os.makedirs(os.path.join(lower, os.path.relpath(path, place)), exist_ok=True)
        layers.append((layer, lower))
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise _NoNamespace(f"no mount namespace: {os.strerror(ctypes.get_errno())}")
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        # Nothing is mounted yet: run without, rather than let an overlay reach the host.
        raise _NoNamespace(f"no private mount namespace: {os.strerror(ctypes.get_errno())}")
    # Opened before the overlays hide them: bound back from these, not from their paths, right
    # after the overlay that hid them (so the next overlay's layers are found again).
    opened = [(path, os.open(path, os.O_RDONLY | os.O_DIRECTORY)) for path in kept_paths]
    opened_shown = [(path, os.open(path, os.O_RDONLY | os.O_DIRECTORY)) for path in shown]
    record, missed = {}, []
    for index, (place, (layer, lower)) in enumerate(zip(overlaid, layers, strict=True)):
        options = f"lowerdir={lower},upperdir={layer / 'upper'},workdir={layer / 'work'}"
        result = libc.mount(b"hermetic-outside", place.encode(), b"overlay", 0, options.encode())
        if result != 0:
            # Nothing of this place is hidden: the others are still watched, this one said.
            missed.append(f"no overlay on {place}: {os.strerror(ctypes.get_errno())}")
            continue
        record[str(index)] = place
        for path, descriptor in opened:
            if _inside(path, place):
                source = f"/proc/self/fd/{descriptor}".encode()
                flags = _MS_BIND | _MS_REC  # with whatever is mounted inside it
                call(libc.mount(source, path.encode(), None, flags, None), f"keeping {path}")
        for path, descriptor in opened_shown if place in hidden else ():
            if _inside(path, place) and not any(_inside(path, kept) for kept in kept_paths):
                source = f"/proc/self/fd/{descriptor}".encode()
                call(libc.mount(source, path.encode(), None, _MS_BIND | _MS_REC, None), path)
                flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY
                call(libc.mount(None, path.encode(), None, flags, None), f"read-only {path}")
    for _, descriptor in (*opened, *opened_shown):
        os.close(descriptor)
    (outside / PLACES).write_text(json.dumps(record), "utf-8")
    if missed:
        (outside / UNAVAILABLE).write_text("; ".join(missed) + "\n", "utf-8")


def _inside(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip("/") + "/")


# -- what the harness runs and reads ---------------------------------------------------------


#: Variables naming a CI job's workspace (GitHub Actions, GitLab, Jenkins): hidden as homes.
CI_WORKSPACES = (
    "GITHUB_WORKSPACE",
    "RUNNER_WORKSPACE",
    "CI_PROJECT_DIR",
    "CI_BUILDS_DIR",
    "WORKSPACE",
)


def hidden_places() -> list[str]:
    """The folders a ``hermes`` command sees empty: the home of the user running the suite,
    ``/root``, ``/home`` and a CI job's workspace."""
    home = os.environ.get("HOME") or str(Path.home())
    workspaces = [os.environ[name] for name in CI_WORKSPACES if os.environ.get(name)]
    return list(dict.fromkeys([home, "/root", "/home", *workspaces]))


def confinement(
    sandbox: Path,
    python: str,
    keep: list[str] | None = None,
    view: int | None = None,
    shown: list[str] | None = None,
) -> list[str]:
    """The prefix that runs a command with the temp folders overlaid and the homes hidden
    (``python``: an interpreter to run this file with, standard library only; ``keep``:
    folders of the suite's own outside the sandbox the command writes to; ``view``: the first
    process of the scenario's PID namespace, :mod:`.process_view`; ``shown``: what the command
    needs from under the homes, bound back read-only)."""
    command = [python, "-I", "-S", os.path.abspath(__file__), str(sandbox)]
    for place in ("/tmp", "/var/tmp"):
        command += ["--place", place]
    for place in hidden_places():
        command += ["--hide", place]
    for folder in shown or []:
        command += ["--show", folder]
    for folder in keep or []:
        command += ["--keep", folder]
    if view is not None:
        command += ["--view", str(view)]
    return [*command, "--"]


def unavailable(sandbox: Path) -> str | None:
    """Why the sandbox's commands ran without the overlays, if they did."""
    try:
        return (sandbox / OUTSIDE / UNAVAILABLE).read_text("utf-8").strip() or None
    except FileNotFoundError:
        return None


def outside_writes(sandbox: Path) -> list[tuple[str, str]]:
    """(path as the process saw it, what happened: ``wrote N bytes``, ``made the folder``,
    ``deleted``) for everything the sandbox's commands changed outside it."""
    found = []
    for seen, _upper, path in _written(sandbox):
        what = _change(path)
        if what is not None:
            found.append((seen, what))
    return found


def outside_files(sandbox: Path) -> list[tuple[str, Path, Path]]:
    """(path as the process saw it, the upper layer that holds it, where the file is now) of
    each file the sandbox's commands wrote outside it."""
    return [
        (seen, upper, path)
        for seen, upper, path in _written(sandbox)
        if stat.S_ISREG(path.lstat().st_mode)
    ]


def _written(sandbox: Path) -> Iterator[tuple[str, Path, Path]]:
    """(path as the process saw it, its upper layer, the entry there) for every entry of the
    overlays' upper layers, in order, leaving out the overlay's own bookkeeping."""
    outside = sandbox / OUTSIDE
    try:
        places = json.loads((outside / PLACES).read_text("utf-8"))
    except (FileNotFoundError, ValueError):
        return
    for index, place in sorted(places.items()):
        upper = outside / index / "upper"
        for path in sorted(upper.rglob("*")):
            relative = path.relative_to(upper)
            if not any(part in _NOT_WRITES for part in relative.parts):
                yield str(Path(place) / relative), upper, path


def _change(path: Path) -> str | None:
    info = path.lstat()
    if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
        return "deleted"  # an overlay whiteout
    if stat.S_ISDIR(info.st_mode):
        # A folder holding what was written is said by its files; an empty one was made.
        return "made the folder" if not any(path.iterdir()) else None
    if stat.S_ISLNK(info.st_mode):
        return f"made a link to {os.readlink(path)}"
    return f"wrote {info.st_size} bytes"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

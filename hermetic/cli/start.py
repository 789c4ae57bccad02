"""How ``hermetic run``, ``matrix`` and ``mutate`` start: the run's request from the command's
options and ``-D``, the suite it runs (``--features``: :func:`choose_suite`), the plan written
into ``--reports`` before anything runs, and the one line when it cannot start."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.cli.options import fail

if TYPE_CHECKING:
    from hermetic.plan.behave_args import BehaveArguments
    from hermetic.plan.model import RunPlan, Spread, Suite
    from hermetic.plan.request import RunRequest


def start_plan(
    args: argparse.Namespace,
    behave_args: list[str],
    own_options: list[str],
    features: list[str] | None,
    spread: Spread,
    scratch: Path,
    before: Callable[[RunRequest], None] | None = None,
) -> RunPlan:
    """The run's plan, resolved once and written into ``--reports``: the request checked,
    the suite chosen, the selection listed, every install made (``before`` checks what the
    command itself needs first). A ConfigError or CannotStart says why it cannot start."""
    from hermetic.errors import Interrupted
    from hermetic.plan.request import COMMAND_LINE
    from hermetic.runs.child_steps import say
    from hermetic.runs.start import start

    try:
        request, behave = read_request(args, behave_args, own_options)
        if before is not None:
            before(request)
        suite = choose_suite(features, behave, scratch)
        python = Path(sys.executable)
        return start(
            request, suite, args.reports.resolve(), spread, python, os.environ, say, COMMAND_LINE
        )
    except Interrupted:  # it says what it was doing and what it left
        raise
    except KeyboardInterrupt:
        raise Interrupted("interrupted before the run started; nothing ran") from None


def cannot_start(reports: Path, message: str) -> int:
    from hermetic.runs.start import record_cannot_start

    record_cannot_start(reports, message)
    return fail(message)


def read_request(
    args: argparse.Namespace, behave_args: list[str], own_options: list[str]
) -> tuple[RunRequest, BehaveArguments]:
    """The run's request from the command's options and the ``-D`` options hermetic reads;
    behave's arguments checked (one line for an unknown option, never passed on)."""
    from hermetic.errors import ConfigError
    from hermetic.plan.behave_args import BehaveArguments, check_behave_args, split_defines
    from hermetic.plan.request import COMMAND_LINE, PLAN_KEY, RunRequest, check_keys

    checked = check_behave_args(behave_args, own_options)
    options, defines, others = split_defines(checked.options)
    check_keys({**others, **defines}, extra=())
    values = {
        "plugin": args.plugin,
        "profile": str(args.profile) if args.profile else None,
        "hermes": str(getattr(args, "hermes", None) or "") or None,
        "hermes_package": getattr(args, "hermes_package", None),
        "hermes_version": getattr(args, "hermes_version", None),
    }
    for key, value in defines.items():
        if key == PLAN_KEY:
            raise ConfigError("-D plan=…: a run writes its own plan")
        if values.get(key):
            option = COMMAND_LINE.options[key].strip()
            raise ConfigError(f"{option} {values[key]} and -D {key}={value}: give one of them")
        values[key] = value
    try:
        request = RunRequest(**{key: value for key, value in values.items() if value})
    except ConfigError as exc:
        raise ConfigError(COMMAND_LINE.show(str(exc))) from None
    return request, BehaveArguments(checked.paths, tuple(options))


#: ``--features bundled``: hermetic's own features.
BUNDLED = "bundled"
#: What this repository's pyproject says for a plain `behave` of the bundled features.
BUNDLED_ARGS = ("--tags=not @wip",)
CONSOLE_ARGS = ("--no-skipped", "--no-color")


def choose_suite(features: list[str] | None, behave: BehaveArguments, scratch: Path) -> Suite:
    """The suite a run runs. Your own features (``--features DIR``, else ``./features`` when it
    holds any, as ``hermetic init`` writes it) run with the ``steps/`` and ``environment.py``
    beside them; ``--features bundled`` (the default without features of your own) runs
    hermetic's, copied into ``scratch`` with our steps and hooks; both, when both are named.

    Feature paths given (``features/x.feature:12``) are your files, or, in a run of the
    bundled features alone, the bundled ones as the reports name them.
    """
    from hermetic.errors import ConfigError
    from hermetic.integrations.suite import scratch_suite
    from hermetic.plan.behave_args import path_exists
    from hermetic.plan.model import Suite

    named = list(dict.fromkeys(features or []))
    folders = [name for name in named if name != BUNDLED]
    if len(folders) > 1:
        raise ConfigError(f"--features {' and '.join(folders)}: one folder of your own at most")
    if folders:
        own = _own_features(Path(folders[0]))
    elif BUNDLED in named:
        own = None  # `--features bundled` alone: not ./features beside them
    else:
        own = _own_features(None)
    with_bundled = BUNDLED in named or own is None
    bundled = scratch_suite(scratch) if with_bundled else None
    if own is None:
        assert bundled is not None
        for path in behave.paths:
            if not path_exists(path, scratch):
                raise ConfigError(
                    f"{path}: no such feature file or folder among the bundled features "
                    f"({', '.join(sorted(p.name for p in bundled.glob('*.feature')))})"
                )
        return Suite(
            cwd=scratch,
            paths=behave.paths or (str(bundled),),
            args=behave.options,
            bundled_at=str(bundled),
            defaults=(*BUNDLED_ARGS, *CONSOLE_ARGS),
        )
    here = Path.cwd()
    for path in behave.paths:
        if not path_exists(path, here):
            raise ConfigError(f"{path}: no such feature file or folder")
    paths = tuple(_absolute(path, here) for path in behave.paths) or (str(own),)
    if bundled is not None:
        paths = (*paths, str(bundled))
    return Suite(
        cwd=own.parent,
        paths=paths,
        args=behave.options,
        own=own,
        bundled_at=str(bundled) if bundled is not None else None,
        defaults=CONSOLE_ARGS,
    )


def _own_features(features: Path | None) -> Path | None:
    """The author's features folder: ``--features DIR`` (checked), else ``./features`` when it
    holds feature files; its suite needs ``steps/`` and ``environment.py`` beside it."""
    from hermetic.errors import ConfigError

    folder = (features or Path("features")).resolve()
    if features is None and not (folder.is_dir() and any(folder.glob("**/*.feature"))):
        return None
    shown = features or "features"
    if not folder.is_dir():
        raise ConfigError(f"--features {shown}: not a folder")
    if not any(folder.glob("**/*.feature")):
        raise ConfigError(f"--features {shown}: no .feature file in it")
    root = folder.parent
    missing = [name for name in ("steps", "environment.py") if not (root / name).exists()]
    if missing:
        raise ConfigError(
            f"--features {shown}: no {' or '.join(missing)} beside it in {root}; "
            f"`hermetic init {root}` writes them (our steps and hooks, one line each)"
        )
    return folder


def _absolute(path: str, base: Path) -> str:
    head, sep, tail = path.rpartition(":")
    if sep and head and all(part.isdigit() for part in tail.split(",") if part):
        return f"{(base / head).resolve()}:{tail}"
    return str((base / path).resolve())

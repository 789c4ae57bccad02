"""A throwaway Hermes home and decoy user home per scenario, with a scrubbed environment.

Nothing here reads or writes the real ``~/.hermes`` or the user's home: every path Hermes derives
(its home, ``~``, the managed-config overlay, temp files) points inside the sandbox folder.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.hermes.run.process_env import process_env
from hermetic.hermes.run.tempdirs import make_temp_dir
from hermetic.isolation.guard import process_view
from hermetic.isolation.guard.log import GUARD_DIR
from hermetic.isolation.guard.outside import confinement
from hermetic.isolation.guard.site.hermetic_netguard_protocol import COVERAGE_DIR_VARIABLE

# What a plugin folder may hold that is not the plugin: version control, virtual environments,
# caches, build output, and a behave suite (`hermetic init` in the plugin's own folder writes
# features/, steps/ and environment.py there). None of it belongs in Hermes' plugins folder (a
# 30 MB .venv was copied into every sandbox once), and none of it is read by Hermes.
NOT_THE_PLUGIN = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".hermetic-envs",
        "node_modules",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        "build",
        "dist",
        "reports",
        ".idea",
        ".vscode",
        # A behave suite beside the plugin, and its profile: the harness's, not Hermes'.
        "features",
        "steps",
        "tests",
        "environment.py",
        "hermetic.toml",
    }
)


# Appended to the installed plugin's __init__.py: its register(ctx) gets a ctx whose
# register_hook wraps each callback in a sleep. Everything else of ctx is Hermes' own.
_SLOW_HOOKS = """

# added by hermetic: every hook of this plugin waits {seconds} s before doing its work
import functools as _hermetic_functools
import time as _hermetic_time

_hermetic_register = register


class _HermeticSlowContext:
    def __init__(self, ctx):
        self._ctx = ctx

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def register_hook(self, hook_name, callback, *args, **kwargs):
        @_hermetic_functools.wraps(callback)
        def slow(*call_args, **call_kwargs):
            _hermetic_time.sleep({seconds})
            return callback(*call_args, **call_kwargs)

        return self._ctx.register_hook(hook_name, slow, *args, **kwargs)


def register(ctx):
    return _hermetic_register(_HermeticSlowContext(ctx))
"""


def not_the_plugin(folder: str, names: list[str]) -> set[str]:
    """shutil.copytree ignore function: everything in :data:`NOT_THE_PLUGIN`, compiled files,
    egg-info folders, and any folder that is a virtual environment under another name."""
    ignored = set()
    for name in names:
        path = Path(folder) / name
        if (
            name in NOT_THE_PLUGIN
            or name.endswith((".pyc", ".egg-info"))
            or (path.is_dir() and (path / "pyvenv.cfg").exists())
        ):
            ignored.add(name)
    return ignored


@dataclass
class Sandbox:
    """One scenario's folder: ``hermes/`` (HERMES_HOME), ``home/`` (decoy HOME), ``out/`` (logs)."""

    root: Path
    hermes_executable: Path
    plugin_name: str | None = None
    plugin_source: Path | None = None
    # "block" refuses non-loopback traffic; "record" only records it (to show what Hermes tries).
    network_mode: str = "block"
    # Variables a profile ([env]) or a login provider adds; the sandbox's own always win.
    extra_env: dict[str, str] = field(default_factory=dict)
    # A pip plugin: the entry point Hermes loads it through, and where its code lies in
    # Hermes' environment (a directory plugin's code is plugins/<name>/).
    entry_point: str | None = None
    plugin_code: Path | None = None
    # Files of the plugin's folder its install left out (git does not track them).
    plugin_left_out: tuple[str, ...] = ()
    # Folders a command needs from under the hidden homes beside Hermes' own (bound back
    # read-only: hermetic.isolation.guard.outside), such as the repository an install clones.
    shown: list[Path] = field(default_factory=list)
    # The scenario's PID namespace (hermetic.isolation.guard.process_view): its keeper, and
    # the pid of its first process (None: not made yet, or not possible here).
    _view_keeper: subprocess.Popen[str] | None = field(default=None, repr=False)
    _view_first: int | None = field(default=None, repr=False)

    @classmethod
    def create(cls, hermes_executable: Path, parent: Path | None = None) -> Sandbox:
        """Make a fresh sandbox folder (under ``parent`` or the system temp dir)."""
        root = make_temp_dir("hermetic-", parent)
        sandbox = cls(root=root, hermes_executable=hermes_executable)
        for folder in (sandbox.hermes_home, sandbox.home, sandbox.out_dir, sandbox.tmp_dir):
            folder.mkdir(parents=True)
        return sandbox

    # -- paths ------------------------------------------------------------------------------
    @property
    def hermes_home(self) -> Path:
        return self.root / "hermes"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def managed_dir(self) -> Path:
        # Must not exist: its absence is what disables the /etc/hermes overlay.
        return self.root / "no-managed"

    @property
    def out_dir(self) -> Path:
        return self.root / "out"

    @property
    def tmp_dir(self) -> Path:
        return self.root / "tmp"

    @property
    def config_path(self) -> Path:
        return self.hermes_home / "config.yaml"

    @property
    def jobs_path(self) -> Path:
        return self.hermes_home / "cron" / "jobs.json"

    @property
    def agent_log(self) -> Path:
        return self.hermes_home / "logs" / "agent.log"

    @property
    def plugins_dir(self) -> Path:
        return self.hermes_home / "plugins"

    @property
    def installed_plugin(self) -> Path | None:
        if self.plugin_code is not None:
            return self.plugin_code
        return self.plugins_dir / self.plugin_name if self.plugin_name else None

    @property
    def network_log(self) -> Path:
        return self.out_dir / "network.jsonl"

    @property
    def process_log(self) -> Path:
        return self.out_dir / "processes.jsonl"

    # -- setup ------------------------------------------------------------------------------
    def copy_plugin_folder(self, name: str, source: Path) -> Path:
        """Copy a directory plugin's folder ``source`` to ``plugins/<name>/`` (the name its
        manifest registers) as the plugin under test, and remember both."""
        target = self.plugins_dir / name
        shutil.copytree(source, target, ignore=not_the_plugin)
        self.plugin_name = name
        self.plugin_source = source
        return target

    def place_installed_plugin(self, name: str, installed: Path, left_out: tuple[str, ...]) -> Path:
        """Copy what Hermes' installer put under ``plugins/`` (``installed``, kept once per
        run) to this sandbox's ``plugins/<name>/``, as it is: the plugin under test (replacing
        the copy another Hermes build installed, when a scenario switches to one)."""
        target = self.plugins_dir / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(installed, target, symlinks=True)
        self.plugin_name = name
        self.plugin_source = installed
        self.plugin_left_out = left_out
        return target

    def enable_package_plugin(self, name: str, entry_point: str, code: Path | None) -> Path:
        """Remember the pip plugin Hermes will load through ``entry_point`` (already installed
        in Hermes' environment, so nothing is copied)."""
        self.plugin_name = name
        self.entry_point = entry_point
        self.plugin_code = code
        return code or self.hermes_executable.parent.parent

    def add_stale_copy(self, folder_name: str) -> Path:
        """Copy the plugin under test again, as ``plugins/<folder_name>`` with the same name:
        the leftover backup that once shadowed the real plugin upstream."""
        if self.plugin_source is None:
            raise HarnessError("install the plugin under test before adding a stale copy of it")
        target = self.plugins_dir / folder_name
        shutil.copytree(self.plugin_source, target, ignore=not_the_plugin)
        return target

    def add_import_to_plugin(self, module: str) -> None:
        """Make the installed plugin import ``module`` when Hermes loads it (at the end of its
        ``__init__.py``, where even a ``from __future__`` import cannot be in the way)."""
        self.add_code_to_plugin(f"import {module}  # added by hermetic: a package Hermes lacks")

    def own_copy_of_plugin(self) -> Path:
        """The scenario's own copy of a directory plugin, which a scenario may change.

        A pip plugin's code lives in an environment every scenario of the run shares: changing
        it would change every later scenario too, so only ``@directory-plugin`` scenarios may.
        """
        if self.installed_plugin is None:
            raise HarnessError("install the plugin under test before changing what it runs")
        if self.plugin_code is not None:
            raise HarnessError(
                "the plugin under test is pip-installed in an environment all scenarios share; "
                "a scenario that changes its code must be tagged @directory-plugin"
            )
        return self.installed_plugin

    def add_code_to_plugin(self, code: str) -> None:
        """Make the installed plugin run ``code`` when Hermes loads it (at the end of its
        ``__init__.py``); the isolation scenarios break a guarantee this way."""
        init = self.own_copy_of_plugin() / "__init__.py"
        with init.open("a", encoding="utf-8") as handle:
            handle.write(f"\n\n{code}\n")

    def slow_down_plugin_hooks(self, seconds: float) -> None:
        """Make every hook the installed plugin registers wait ``seconds`` before it does its
        work (a plugin stuck on a slow disk or endpoint); its own code is left as it is.

        The wrapper keeps the callback's signature (``functools.wraps``): 0.20+ pass a callback
        only the arguments it declares, read from that signature.
        """
        init = self.own_copy_of_plugin() / "__init__.py"
        with init.open("a", encoding="utf-8") as handle:
            handle.write(_SLOW_HOOKS.format(seconds=float(seconds)))

    def env(self) -> dict[str, str]:
        """The complete environment for a ``hermes`` process: built from nothing, not filtered
        (:func:`hermetic.hermes.run.process_env.process_env`)."""
        return process_env(self)

    def confinement(self) -> list[str]:
        """What runs before ``hermes``: a mount namespace in which the temp folders and the real
        home are overlays kept inside the sandbox (:mod:`hermetic.isolation.guard.outside`),
        with the suite's own folders outside it (a coverage folder) left as they are, in the
        scenario's PID namespace with its own ``/proc``
        (:mod:`hermetic.isolation.guard.process_view`)."""
        keep = [self.extra_env[name] for name in (COVERAGE_DIR_VARIABLE,) if name in self.extra_env]
        shown = [str(path) for path in self.needed_from_home()]
        return confinement(self.root, sys.executable, keep, self._process_view(), shown)

    def needed_from_home(self) -> list[Path]:
        """What a ``hermes`` command reads from under the homes (which it otherwise sees
        empty): Hermes' environment, the Python it was made from, the loopback guard its
        processes load, a pip plugin's code, and :attr:`shown`."""
        environment = self.hermes_executable.parent.parent
        needed = [environment, GUARD_DIR, *self.shown]
        if self.plugin_code is not None:
            needed.append(self.plugin_code)
        python = self.hermes_executable.parent / "python"
        if python.exists():
            needed.append(python.resolve().parent.parent)
        try:
            settings = (environment / "pyvenv.cfg").read_text("utf-8").splitlines()
        except OSError:
            settings = []
        for line in settings:
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                needed.append(Path(value.strip()).resolve().parent)
        return list(dict.fromkeys(path.resolve() for path in needed))

    def _process_view(self) -> int | None:
        """The first process of the scenario's PID namespace, made on first use; None (and
        why, in the sandbox) where none can be made."""
        if self._view_keeper is None:
            self._view_keeper = subprocess.Popen(
                process_view.keeper_command(sys.executable),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                text=True,
                # Its first process is pid 1 of the view: its environment is in the view too.
                env={},
                start_new_session=True,  # a Ctrl-C meant for the run reaches it through cleanup
            )
            said = (self._view_keeper.stdout.readline() if self._view_keeper.stdout else "").strip()
            if said.isdigit():
                self._view_first = int(said)
            else:
                why = said.removeprefix("no: ") or "the keeper of the PID namespace did not start"
                process_view.say_unavailable(str(self.root), why)
        return self._view_first

    def stop_process_view(self) -> None:
        """End the scenario's PID namespace: whatever of it still runs is killed by the kernel."""
        keeper, self._view_keeper, self._view_first = self._view_keeper, None, None
        if keeper is None:
            return
        keeper.terminate()
        try:
            keeper.wait(timeout=5)
        except subprocess.TimeoutExpired:
            keeper.kill()
            keeper.wait()
        if keeper.stdout:
            keeper.stdout.close()

    def remove(self) -> None:
        """End the PID namespace and delete the whole sandbox folder."""
        self.stop_process_view()
        shutil.rmtree(self.root, ignore_errors=True)

"""The suite's own guarantees, checked after every Hermes run of every scenario.

* **The plugin loaded** (:mod:`hermetic.hermes.read.plugin_load`): a failed load is the headline and
  fails the scenario at once: nothing else it could find means anything without the plugin.
* **The loopback guard ran** in every ``hermes`` process: without it, "no attempt beyond
  loopback" is true of anything. Also at once: it is the harness that failed.
* **Nothing the guard could not see was refused by the kernel** (:mod:`hermetic.isolation.netns`):
  in the run's network namespace, a rise of the kernel's no-route counters during a run that the
  guard did not record (a child process, a C-level socket) is a finding too, naming who handed
  off and what the output said.
* **Loopback only** (:mod:`hermetic.isolation.guard`) and **the plugin under test is the copy Hermes
  loaded** (:mod:`hermetic.hermes.read.plugin_identity`): these verdicts never hide the alert
  verdict. They are collected, the scenario's own ``Then`` steps run, and the scenario fails
  afterwards with both in the report. A network attempt to a host the plugin's profile lists as
  expected is still refused, and reported as expected instead of failing.
* **Hermes waited for the plugin's hooks** (:mod:`hermetic.hermes.read.hook_timeouts`): 0.22+
  abandon a hook that runs over ``plugins.hook_callback_timeout``; its unwritten alert is lost, and
  the scenario fails afterwards saying so.
* **The stand-in credential went to loopback only** (:mod:`hermetic.isolation.stand_in`): when the
  profile gives the plugin ``{credential}``, no file of the sandbox may hold it afterwards
  (logs, stored alerts, the commands' output, the guard's log of refused attempts) but those
  the profile wrote it into. Collected like the network verdict, naming each place.

A scenario that is *about* one of these guarantees says so with :meth:`RunChecks.expect` and
reads the findings itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermetic.hermes.read.hook_timeouts import HookTimeout, hook_timeouts
from hermetic.hermes.read.plugin_identity import entry_point_problem, identity_problem
from hermetic.hermes.read.plugin_load import LoadFailure, load_failures
from hermetic.hermes.run.commands import CommandResult
from hermetic.hermes.run.sandbox import Sandbox
from hermetic.isolation.credential_leaks import find_leaks
from hermetic.isolation.guard import process_view
from hermetic.isolation.guard.handoffs import Handoff, read_handoffs
from hermetic.isolation.guard.log import NetworkAttempt, handoff_log, non_loopback, read_attempts
from hermetic.isolation.guard.outside import OUTSIDE as OUTSIDE_FOLDER
from hermetic.isolation.guard.outside import outside_writes, unavailable
from hermetic.isolation.guard.process_log import outside_namespace, read_process_starts, unguarded
from hermetic.isolation.guard.reads import READ_LOG, ReadAttempt, read_read_attempts
from hermetic.isolation.netns.counters import in_loopback_namespace, own_namespace
from hermetic.isolation.refusals import unseen_refusal
from hermetic.mock.receivers.credentials import refused_without_key

PLUGIN_LOAD = "plugin load"
GUARD = "loopback guard"
NETWORK = "network"
IDENTITY = "plugin identity"
HOOK_TIME = "hook time"
CREDENTIAL = "stand-in credential"
# What the network namespace refused that the guard could not see
# (hermetic.isolation.refusals).
KERNEL = "kernel refusal"
# Deliveries the collector refused for want of the stand-in key
# (hermetic.mock.receivers.credentials).
KEY = "stand-in key unsent"
# Files written outside the sandbox (hermetic.isolation.guard.outside).
OUTSIDE = "outside writes"
# Attempts to read the machine's files or other processes' environments
# (hermetic.isolation.guard.reads).
READS = "reads of the machine"
KINDS = (
    PLUGIN_LOAD,
    GUARD,
    NETWORK,
    IDENTITY,
    HOOK_TIME,
    CREDENTIAL,
    KERNEL,
    KEY,
    OUTSIDE,
    READS,
)


@dataclass(frozen=True)
class Finding:
    """One broken guarantee, seen after a Hermes run."""

    kind: str
    message: str


def who_tried(attempt: NetworkAttempt | Handoff | ReadAttempt, plugin_dir: Path | None) -> str:
    """Whose code made a network attempt: the plugin under test (its file) or Hermes."""
    if plugin_dir is not None:
        for frame in attempt.stack:
            if frame.startswith(str(plugin_dir)):
                return f"the plugin under test: {Path(frame).relative_to(plugin_dir.parent)}"
    origin = attempt.stack[0] if attempt.stack else "unknown code"
    return f"Hermes' own code: {origin}"


def who_read(attempt: ReadAttempt, plugin_dir: Path | None, plugins: Path) -> str:
    """Whose code tried a read: the plugin under test, another plugin of the Hermes home (by
    its folder), or Hermes."""
    for frame in attempt.stack:
        if frame.startswith(str(plugins) + "/") and not (
            plugin_dir is not None and frame.startswith(str(plugin_dir))
        ):
            return f"the plugin {Path(frame).relative_to(plugins)}"
    return who_tried(attempt, plugin_dir)


def describe_attempts(attempts: Iterable[NetworkAttempt], plugin_dir: Path | None) -> str:
    """One line per attempt, naming who tried."""
    lines = []
    for attempt in attempts:
        host = f"[{attempt.host}]" if ":" in attempt.host else attempt.host
        where = host if attempt.port is None else f"{host}:{attempt.port}"
        verdict = "allowed" if attempt.allowed else "REFUSED"
        lines.append(
            f"  {attempt.kind} {where} {verdict} (pid {attempt.pid}, from "
            f"{who_tried(attempt, plugin_dir)})"
        )
    return "\n".join(lines)


@dataclass
class RunChecks:
    """What the checks found in one scenario, and which guarantees the scenario is about."""

    sandbox: Sandbox
    # Hosts the plugin's profile says it will try ([network] expected): refused, not failing.
    expected_hosts: frozenset[str] = frozenset()
    # The scenario's stand-in for the profile's {credential}, the keys that carry it, and the
    # files (relative to HERMES_HOME) the profile wrote it into.
    credential: str | None = None
    credential_keys: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ()
    # Every request the scenario's collector received (none without one).
    deliveries: Callable[[], Sequence[Any]] = tuple
    expected_kinds: set[str] = field(default_factory=set)
    identity_problems: list[str] = field(default_factory=list)
    kernel_refusals: list[str] = field(default_factory=list)

    def expect(self, kind: str) -> None:
        """This scenario is about ``kind``: its findings are read by the scenario, not raised."""
        if kind not in KINDS:
            raise ValueError(f"unknown check {kind!r}; known: {', '.join(KINDS)}")
        self.expected_kinds.add(kind)

    # -- after every run -------------------------------------------------------------------
    def immediate(self, result: CommandResult, loads_plugins: bool = True) -> Finding | None:
        """The finding that must stop the scenario now (a plugin that failed to load first)."""
        if loads_plugins and PLUGIN_LOAD not in self.expected_kinds:
            failures = self.load_failures(result)
            if failures:
                return Finding(PLUGIN_LOAD, self.load_verdict(failures))
        if GUARD not in self.expected_kinds and result.pid:
            starts = read_process_starts(self.sandbox.process_log)
            problem = unguarded(starts, result.pid, result.command)
            if problem is None and in_loopback_namespace():
                problem = outside_namespace(starts, result.pid, result.command, own_namespace())
            if problem:
                return Finding(GUARD, problem)
        return None

    def collect(self, result: CommandResult) -> None:
        """Remember what this run says about the copy of the plugin Hermes loaded."""
        problem = self.identity_problem(result)
        if problem and problem not in self.identity_problems:
            self.identity_problems.append(problem)

    def note_refusals(self, result: CommandResult) -> None:
        """Remember what the namespace refused during this run that the guard did not see."""
        if not result.kernel_refused:
            return
        refusal = unseen_refusal(
            result,
            self.network_attempts(),
            read_handoffs(handoff_log(self.sandbox.network_log)),
            lambda handoff: who_tried(handoff, self.sandbox.installed_plugin),
        )
        if refusal:
            self.kernel_refusals.append(refusal)

    # -- the findings -----------------------------------------------------------------------
    def load_failures(self, result: CommandResult) -> list[LoadFailure]:
        name = self.sandbox.plugin_name
        if name is None:
            return []
        return load_failures(result.stderr, name, self.sandbox.installed_plugin)

    def load_verdict(self, failures: list[LoadFailure]) -> str:
        """Hermes' own line first, then the plugin's traceback, then what it means."""
        box = self.sandbox
        return "\n\n".join(
            f.describe(box.installed_plugin, box.entry_point, box.plugin_left_out) for f in failures
        )

    def identity_problem(self, result: CommandResult) -> str | None:
        installed = self.sandbox.installed_plugin
        if installed is None or self.sandbox.plugin_name is None:
            return None
        if self.sandbox.entry_point is not None:
            return entry_point_problem(
                result.stderr, self.sandbox.plugin_name, self.sandbox.entry_point
            )
        return identity_problem(result.stderr, self.sandbox.plugin_name, installed)

    def hook_timeouts(self) -> list[HookTimeout]:
        """The hook calls Hermes' log says it gave up on (0.22+; none before)."""
        try:
            text = self.sandbox.agent_log.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return []
        return hook_timeouts(text)

    def network_attempts(self) -> list[NetworkAttempt]:
        return read_attempts(self.sandbox.network_log)

    def beyond_loopback(self) -> tuple[list[NetworkAttempt], list[NetworkAttempt]]:
        """(unexpected, expected) attempts beyond loopback, by the profile's expected hosts."""
        attempts = non_loopback(self.network_attempts())
        expected = [a for a in attempts if a.host.lower().rstrip(".") in self.expected_hosts]
        return [a for a in attempts if a not in expected], expected

    def deferred(self) -> list[Finding]:
        """The collected verdicts that fail the scenario after its own steps ran."""
        findings = []
        if NETWORK not in self.expected_kinds:
            unexpected, _ = self.beyond_loopback()
            if unexpected:
                findings.append(
                    Finding(
                        NETWORK,
                        "Hermes tried to reach beyond loopback (the run must stay on this "
                        "machine; every attempt was refused):\n"
                        + describe_attempts(unexpected, self.sandbox.installed_plugin),
                    )
                )
        if IDENTITY not in self.expected_kinds:
            findings.extend(Finding(IDENTITY, problem) for problem in self.identity_problems)
        if HOOK_TIME not in self.expected_kinds:
            findings.extend(Finding(HOOK_TIME, late.describe()) for late in self.hook_timeouts())
        if CREDENTIAL not in self.expected_kinds:
            leak = self.credential_finding()
            findings.extend([leak] if leak else [])
        if KERNEL not in self.expected_kinds:
            findings.extend(Finding(KERNEL, refusal) for refusal in self.kernel_refusals)
        if KEY not in self.expected_kinds:
            unsent = self.key_finding()
            findings.extend([unsent] if unsent else [])
        if OUTSIDE not in self.expected_kinds:
            escaped = self.outside_finding()
            findings.extend([escaped] if escaped else [])
        if READS not in self.expected_kinds:
            snooped = self.reads_finding()
            findings.extend([snooped] if snooped else [])
        return findings

    def reads_finding(self) -> Finding | None:
        """Every attempt of the scenario's hermes processes to read what is the machine's,
        each named with who tried (what was read is never shown: it may be a key)."""
        attempts = read_read_attempts(self.sandbox.out_dir / READ_LOG)
        if not attempts:
            return None
        plugin = self.sandbox.installed_plugin
        plugins = self.sandbox.plugins_dir
        lines = [
            f"  {attempt.what} (pid {attempt.pid}, from {who_read(attempt, plugin, plugins)})"
            for attempt in attempts
        ]
        return Finding(
            READS,
            f"a process of the run tried to read {attempts[0].what}"
            + (f" (and {len(attempts) - 1} more)" if len(attempts) > 1 else "")
            + ": on a user's machine that is their files and their shell's keys. The run "
            "showed it an empty home and no process but its own, so it read nothing:\n"
            + "\n".join(lines),
        )

    def key_finding(self) -> Finding | None:
        """Deliveries the collector refused (401) because they carried not the stand-in key
        the profile gives the plugin: a real backend keeps nothing of them."""
        refused = [entry for entry in self.deliveries() if getattr(entry, "keyless", False)]
        message = refused_without_key(refused, self.credential_keys)
        return Finding(KEY, message) if message else None

    def outside_finding(self) -> Finding | None:
        """What the scenario's hermes processes wrote outside the sandbox, each path as the
        plugin would have written it on a user's machine."""
        writes = outside_writes(self.sandbox.root)
        if not writes:
            return None
        shown = [f"  {path} ({what})" for path, what in writes[:20]]
        if len(writes) > 20:
            shown.append(f"  … and {len(writes) - 20} more")
        first = writes[0][0]
        return Finding(
            OUTSIDE,
            f"the plugin wrote {first} outside the sandbox"
            + (f" (and {len(writes) - 1} more place(s))" if len(writes) > 1 else "")
            + ": a user's Hermes would leave it on their machine, where nobody reads it, and a "
            "second Hermes home would share it. Keep the plugin's files under HERMES_HOME (a "
            "profile names it {hermes_home}). The run kept them off this machine: they are in "
            f"{self.sandbox.root / OUTSIDE_FOLDER}.\n" + "\n".join(shown),
        )

    def credential_finding(self) -> Finding | None:
        """The stand-in credential written where a real key would leak, naming each place."""
        leaks = self.credential_leaks()
        if not leaks:
            return None
        return Finding(
            CREDENTIAL,
            f"the stand-in credential the plugin is given ({', '.join(self.credential_keys)}) "
            "was written where a real key would leak (it may only be sent to loopback peers):\n"
            + "\n".join(f"  {place}" for place in leaks),
        )

    def credential_leaks(self) -> list[str]:
        """Every place the stand-in credential was written to but should not have been."""
        if self.credential is None:
            return []
        home = self.sandbox.hermes_home
        return find_leaks(
            self.credential,
            [("HERMES_HOME", home), ("HOME", self.sandbox.home), ("out", self.sandbox.out_dir)],
            allowed=[home / relative for relative in self.credential_files],
        )

    def notes(self) -> str | None:
        """What the report lists without failing: attempts the profile said to expect, and
        why writes outside the sandbox could not be watched, if they could not."""
        notes = []
        _, expected = self.beyond_loopback()
        if expected:
            notes.append(
                "expected by the plugin's profile ([network] expected), refused as always:\n"
                + describe_attempts(expected, self.sandbox.installed_plugin)
            )
        why = unavailable(self.sandbox.root)
        if why:
            notes.append(
                f"writes outside the sandbox were not watched in this run ({why}): the temp "
                "folders and the home are overlaid only in a mount namespace"
            )
        why = process_view.unavailable(self.sandbox.root)
        if why:
            notes.append(
                f"Hermes and the plugin saw the machine's processes in this run ({why}): "
                "their environments (keys of the shell that started the run included) could be "
                "read through /proc"
            )
        return "\n\n".join(notes) or None

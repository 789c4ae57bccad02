"""The reviewed table of Hermes' own defects: what identifies each, where, and why.

A defect gets a row here only after it was seen and read in Hermes' code (its ``source`` says
where): the releases it is known in (a PEP 440 specifier), the lines Hermes writes when it
strikes (every pattern must match a line of the scenario's Hermes output or logs), and one
sentence a plugin author can read. Adding a defect is one row and a unit test; a release that
fixes it narrows ``releases``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version


@dataclass(frozen=True)
class HermesDefect:
    """One known defect of Hermes itself."""

    name: str
    releases: str  # PEP 440 specifier: the releases it is known in
    lines: tuple[str, ...]  # regular expressions, each matching one line Hermes writes
    explanation: str  # one sentence, for the plugin author
    source: str  # where it is in Hermes' code
    # Regular expressions for the failures this defect causes: every failure of the scenario
    # (each failed step's message, each finding of the suite's own checks) must match one, so
    # a defect whose lines Hermes always writes never explains another failure beside it.
    # Empty: the failed steps, whatever they say, but never a finding of the suite's checks.
    failures: tuple[str, ...] = ()
    # Regular expressions on the command lines of processes the defect leaves running for a
    # moment and that exit by themselves: waited for before the promise "nothing is left
    # running" is checked (hermetic.known.settle).
    passing: tuple[str, ...] = ()

    def affects(self, version: str) -> bool:
        try:
            return SpecifierSet(self.releases).contains(Version(version), prereleases=True)
        except InvalidVersion:
            return False

    def seen_in(self, lines: Iterable[str]) -> bool:
        """Whether every identifying pattern matches one of ``lines``."""
        patterns = [re.compile(pattern) for pattern in self.lines]
        found = [False] * len(patterns)
        for line in lines:
            for index, pattern in enumerate(patterns):
                found[index] = found[index] or bool(pattern.search(line))
        return all(found)

    def explains(self, steps: Sequence[str], findings: Sequence[str] = ()) -> bool:
        """Whether the failed steps' messages and the suite's findings are all this defect's."""
        if not self.failures:
            return not findings
        return all(
            any(re.search(pattern, message) for pattern in self.failures)
            for message in (*steps, *findings)
        )

    def leaves(self, command: str) -> bool:
        """Whether ``command`` is a process this defect leaves running for a moment."""
        return any(re.search(pattern, command) for pattern in self.passing)

    def headline(self, version: str) -> str:
        return f"Hermes {version}'s own defect ({self.name}): {self.explanation}, not your plugin"


DEFECTS: tuple[HermesDefect, ...] = (
    HermesDefect(
        name="gateway stop race",
        releases="==0.19.0",
        lines=(r"Received UNKNOWN\b.*initiating shutdown",),
        explanation=(
            "on `hermes gateway stop` its planned-stop watcher thread and its SIGTERM handler "
            "both act on the one stop, the second finds the marker already consumed, takes "
            "the stop as unexpected and `gateway run` exits 1"
        ),
        source="gateway/run.py: _run_planned_stop_watcher against the SIGTERM handler's "
        "consume_planned_stop_marker_for_self",
    ),
    # The same race the other way round (read in the code, not yet seen): the watcher consumes
    # the marker first, and the SIGTERM that follows is taken as unexpected. The handler has
    # no guard against running twice, so the two lines together mean one stop handled twice.
    HermesDefect(
        name="gateway stop race, watcher first",
        releases="==0.19.0",
        lines=(
            r"Received UNKNOWN as a planned gateway stop",
            r"Received SIGTERM\b.*initiating shutdown",
        ),
        explanation=(
            "on `hermes gateway stop` its planned-stop watcher thread consumes the stop "
            "marker before the SIGTERM handler runs, which then takes the same stop as "
            "unexpected and `gateway run` exits 1"
        ),
        source="gateway/run.py: _run_planned_stop_watcher, shutdown_signal_handler (no "
        "re-entrance guard)",
    ),
    # Seen in 4 Nous login scenarios on 0.22.2.post1 (docs/how-to/hermes-builds.md). After the 401,
    # the pool entry is refreshed (hermes_cli/auth_nous.py, refresh_nous_oauth_from_state):
    #     _apply_nous_refreshed_tokens(state, refreshed, refresh_token_value,
    #         inference_base_url=_healed_nous_inference_url(refreshed))
    # where _healed_nous_inference_url is `url or DEFAULT_NOUS_INFERENCE_URL` (a loopback URL
    # fails the network allowlist); the swap (agent/client_lifecycle.py, _swap_credential) takes
    #     runtime_base = getattr(entry, "runtime_base_url", None) or ...
    #     self._replace_primary_openai_client(reason="credential_rotation")
    # and PooledCredential.runtime_base_url for "nous" is `self.inference_base_url or
    # self.base_url` (agent/credential_pool.py), with no NOUS_INFERENCE_BASE_URL layered on,
    # unlike the refresh of the auth store (`_nous_inference_env_override() or ...`) and unlike
    # openai-codex, whose runtime_base_url honours HERMES_CODEX_BASE_URL.
    HermesDefect(
        name="Nous login renewal ignores NOUS_INFERENCE_BASE_URL",
        releases="==0.22.*",
        lines=(
            r"OpenAI client created \(credential_rotation\b.*\bprovider=nous "
            r"base_url=https://inference-api\.nousresearch\.com",
        ),
        explanation=(
            "after a 401 from the Nous portal it renews the login and sends the retried "
            "request to the production inference URL (the renewed credential's), ignoring "
            "NOUS_INFERENCE_BASE_URL, so the retry never reaches the provider it was set to"
        ),
        source="agent/credential_pool.py: PooledCredential.runtime_base_url (nous) and "
        "hermes_cli/auth_nous.py: _healed_nous_inference_url, used by "
        "agent/client_lifecycle.py: _swap_credential (reason credential_rotation)",
        failures=(
            r"expected \d+ chat requests for .*, the provider received \d+",
            # The loopback guard's finding, when every attempt it names is Hermes' own request
            # to that host (a plugin's attempt, or any other host, is not this defect's).
            r"\AHermes tried to reach beyond loopback[^\n]*"
            r"(?:\n  (?:resolve|connect) inference-api\.nousresearch\.com:443 REFUSED "
            r"\(pid \d+, from Hermes' own code: [^\n]*\))+\Z",
        ),
    ),
    # Seen on Ctrl-C of the gateway on 0.22.2.post1. The signal handler (gateway/run.py,
    # shutdown_signal_handler) logs "Shutdown context: ..." and then
    #     spawn_async_diagnostic(_hermes_home / "logs" / "gateway-shutdown-diag.log",
    #                            _shutdown_ctx["signal"], timeout_seconds=5.0)
    # which (gateway/shutdown_forensics.py) starts `timeout 5 bash -c '... ps ...'` with
    #     start_new_session=True  # outlive systemd killing our cgroup ... to flush
    # and never waits for it: the gateway exits while its diagnostic still runs, for up to 5 s.
    HermesDefect(
        name="gateway shutdown diagnostic outlives the gateway",
        releases="==0.22.*",
        lines=(r"gateway\.run: Shutdown context: signal=SIG[A-Z]+",),
        explanation=(
            "on a stop signal the gateway starts a detached shutdown diagnostic (a `ps` "
            "listing bounded by `timeout 5`) in a session of its own and exits without waiting "
            "for it, so a process of it is still running for up to 5 s after the gateway"
        ),
        source="gateway/run.py: shutdown_signal_handler -> gateway/shutdown_forensics.py: "
        "spawn_async_diagnostic (start_new_session=True, timeout_seconds=5.0)",
        failures=(r"processes of this sandbox still running: .*shutdown diagnostic @ SIG",),
        # `timeout 5 bash -c '...'` and its `bash`: any process running the diagnostic's script.
        passing=(r"\bbash -c .*=== shutdown diagnostic @ SIG[A-Z]+ ===",),
    ),
)


def identify(
    version: str,
    lines: Iterable[str],
    table: Iterable[HermesDefect] = DEFECTS,
    steps: Sequence[str] = (),
    findings: Sequence[str] = (),
) -> HermesDefect | None:
    """The first defect of ``table`` known in ``version`` whose lines all appear in ``lines``
    and that explains every failure: ``steps`` (the failed steps' messages) and ``findings``
    (the suite's own checks')."""
    seen = list(lines)
    return next(
        (
            defect
            for defect in table
            if defect.affects(version) and defect.seen_in(seen) and defect.explains(steps, findings)
        ),
        None,
    )

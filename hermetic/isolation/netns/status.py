"""Which isolation this behave process really has: a loopback-only network namespace (the
kernel refuses everything beyond ``lo``), or the Python guard alone.

Read from the kernel (this process' own interfaces), not taken on trust: the runner's promise
(:data:`~hermetic.isolation.netns.ISOLATION_VARIABLE`) only adds why there is no namespace, or turns
a promised namespace this process is not in into an error that stops the run, so a runner that
started behave outside its namespace cannot pass for a confined one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hermetic.errors import ConfigError
from hermetic.isolation.netns import (
    GUARD_ONLY,
    ISOLATION_VARIABLE,
    KERNEL_TAG,
    NAMESPACE,
    not_run_reason,
)
from hermetic.isolation.netns.counters import in_loopback_namespace
from hermetic.isolation.netns.enter import interfaces

#: Why there is no namespace when behave was started by hand.
NOT_STARTED_BY_RUNNER = (
    "behave was started directly, not through tools/run.py or `hermetic run`, which start each "
    "behave process in a network namespace of its own"
)


@dataclass(frozen=True)
class NetworkIsolation:
    """``kind`` is :data:`~hermetic.isolation.netns.NAMESPACE` or
    :data:`~hermetic.isolation.netns.GUARD_ONLY`; ``reason`` says why there is no namespace."""

    kind: str
    reason: str | None = None

    @property
    def kernel_refuses(self) -> bool:
        return self.kind == NAMESPACE

    def skip_reason(self, tags: list[str]) -> str | None:
        """Why a scenario tagged ``@netns`` is not run here (it would try beyond loopback
        with only the Python guard between it and the network), or None."""
        if KERNEL_TAG not in tags or self.kernel_refuses:
            return None
        return not_run_reason(self.reason)

    def describe(self) -> dict[str, str | None]:
        """For run-info.json."""
        return {"isolation": self.kind, "isolation_reason": self.reason}


def this_process(environ: Mapping[str, str]) -> NetworkIsolation:
    """The isolation of this process; raise ConfigError if the runner promised a namespace
    this process is not in."""
    promised = environ.get(ISOLATION_VARIABLE, "")
    inside = in_loopback_namespace()
    if promised == NAMESPACE and not inside:
        raise ConfigError(
            f"{ISOLATION_VARIABLE}={NAMESPACE}: the runner promised a loopback-only network "
            f"namespace, but this behave process sees the interfaces {', '.join(interfaces())}: "
            "nothing would stop a process of the world from reaching beyond loopback"
        )
    if inside:
        return NetworkIsolation(NAMESPACE)
    kind, _, reason = promised.partition(":")
    if kind.strip() == GUARD_ONLY and reason.strip():
        return NetworkIsolation(GUARD_ONLY, reason.strip())
    return NetworkIsolation(GUARD_ONLY, NOT_STARTED_BY_RUNNER)

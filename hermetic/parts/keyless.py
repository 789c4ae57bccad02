"""Deliveries the scenario's receivers refused because they carried no key: what a plugin that
never sends the key its profile gives it (``{credential}``) would meet at its real backend.

The receivers answer such a delivery 401 (:mod:`hermetic.mock.credentials`) and keep it on
record; this module turns those records into the scenario's finding, for the headline of a
missing alert (:mod:`hermetic.parts.why_no_alert`) and for the suite's own check after every
scenario (a healthy model's spans refused as well).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermetic.world import World

_RECEIVERS = (("_collector", "the collector"), ("_sink", "the sink"))


def keyless_deliveries(world: World) -> list[tuple[str, Any]]:
    """(receiver, journal entry) of every delivery a receiver refused for want of the key."""
    found = []
    for attribute, name in _RECEIVERS:
        receiver = getattr(world, attribute, None)
        if receiver is None:
            continue
        found += [
            (name, entry) for entry in receiver.requests() if getattr(entry, "keyless", False)
        ]
    return found


def keyless_finding(world: World) -> str | None:
    """The finding, headline first, or None when every delivery carried the key."""
    refused = keyless_deliveries(world)
    if not refused:
        return None
    where = sorted({name for name, _ in refused})
    counts = Counter(f"{entry.method} {entry.path}" for _, entry in refused)
    listed = ", ".join(f"{what} ×{n}" if n > 1 else what for what, n in counts.items())
    keys = ", ".join(world.checks.credential_keys) or "{credential}"
    deliveries = "1 delivery" if len(refused) == 1 else f"{len(refused)} deliveries"
    return (
        f"the plugin sent its backend no key: {' and '.join(where)} answered 401 to {deliveries} "
        f"without the stand-in key the profile gives it ({keys}), as the real backend would: "
        f"{listed}\n"
        "A backend keeps nothing it cannot authenticate: send the key with every delivery, in a "
        "header (Authorization, x-api-key …), the URL or the body."
    )

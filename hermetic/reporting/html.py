"""report.html: two adjustments to behave-html-pretty-formatter (1.16.1), made once per run
(what the page shows of the run's result: :mod:`hermetic.reporting.html_page`).

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

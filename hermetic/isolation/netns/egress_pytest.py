"""A pytest plugin of ``tools/check_no_egress.py``: which tests moved the no-route counters.

Loaded only by that tool (``-p hermetic.isolation.netns.egress_pytest``), inside the namespace it
made to stand for the host. Around each test (setup, call and teardown) it reads the namespace's
counters; a test during which they rose is written to the file named by :data:`REPORT_VARIABLE`,
one line each: the test's id, a tab, the rise (``Ip OutNoRoutes +1``). The counters belong to the
whole namespace, so with tests running in parallel a rise is named for every test that was
running then. Tests marked :data:`REGISTRY_MARKER` install from the package registry, which
nothing in that namespace can reach: they are skipped, saying so (run them outside).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from hermetic.isolation.netns.counters import describe, increase, namespace_counters

#: The file the tool reads the tests from; without it the plugin records nothing.
REPORT_VARIABLE = "HERMETIC_EGRESS_REPORT"
#: The marker of tests that install from the package registry.
REGISTRY_MARKER = "registry"
NEEDS_REGISTRY = (
    "installs from the package registry, which the egress check's namespace cannot reach "
    "(run it outside: registry installs are the one traffic allowed there)"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker(REGISTRY_MARKER):
            item.add_marker(pytest.mark.skip(reason=NEEDS_REGISTRY))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    report = os.environ.get(REPORT_VARIABLE)
    before = namespace_counters() if report else {}
    yield
    if not report:
        return
    rose = increase(before, namespace_counters())
    if rose:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(f"{item.nodeid}\t{describe(rose)}\n")

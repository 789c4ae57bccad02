"""Soak: N full runs while a bounded load keeps the cores busy, then every failure per scenario,
split by whose it is.

* ``plugin``: a scenario's assertion failed (what Hermes and the plugin did was not what the
  behaviour says), and no explanation applies;
* ``Hermes' defect``: it hit a defect of the reviewed table (``hermes-defect``,
  :mod:`hermetic.known`);
* ``harness``: it errored instead (an exception in a step or hook, a hung ``hermes``, a worker
  that died): the suite's own problem until shown otherwise.

A scenario listed in the plugin's baseline (``known``) is counted apart: the author expects it.
The load is a few busy processes, each bounded in time by itself (it exits at its deadline even
if the soak is killed), their number bounded by the cores. Standard library only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PLUGIN, DEFECT, HARNESS, KNOWN = "plugin", "Hermes' defect", "harness", "known"
KINDS = (PLUGIN, DEFECT, HARNESS, KNOWN)

# One busy process: spins until its deadline, then exits on its own.
_BURN = (
    "import sys, time\n"
    "end = time.monotonic() + float(sys.argv[1])\n"
    "while time.monotonic() < end:\n"
    "    pass\n"
)


def kind_of(row: Mapping[str, Any]) -> str | None:
    """Whose failure a summary.json row is, or None if it did not fail."""
    status = row.get("status")
    if status == "hermes-defect":
        return DEFECT
    if status == "known":
        return KNOWN
    if status == "errored":
        return HARNESS
    if status == "failed":
        return PLUGIN
    return None


def tally(summaries: Sequence[Mapping[str, Any]]) -> dict[str, Counter[str]]:
    """Per scenario (``feature file: name``), how often each kind of failure happened."""
    counts: dict[str, Counter[str]] = {}
    for summary in summaries:
        for row in summary.get("scenarios", []):
            kind = kind_of(row)
            if kind is None:
                continue
            key = f"{Path(str(row.get('feature_file', ''))).name}: {row.get('name', '')}"
            counts.setdefault(key, Counter())[kind] += 1
    return dict(sorted(counts.items()))


def render(runs: Sequence[Mapping[str, Any]], counts: Mapping[str, Counter[str]]) -> str:
    """The soak's Markdown: one line per run, then failures per scenario and kind."""
    lines = [
        "# Soak",
        "",
        "| run | scenarios | passed | failed | seconds | load average (1 min: min-max) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for index, run in enumerate(runs, 1):
        totals = run.get("totals", {})
        failed = sum(
            int(totals.get(name, 0)) for name in ("failed", "errored", "hermes-defect", "known")
        )
        span = run.get("load") or {}
        load = f"{span['min']:.1f}-{span['max']:.1f}" if span else "-"
        lines.append(
            f"| {index} | {totals.get('scenarios', 0)} | {totals.get('passed', 0)} | {failed} | "
            f"{run.get('seconds', 0):.0f} | {load} |"
        )
    lines += ["", "| scenario | " + " | ".join(KINDS) + " |", "|---|" + "---:|" * len(KINDS)]
    for scenario, kinds in counts.items():
        lines.append(f"| {scenario} | " + " | ".join(str(kinds.get(k, 0)) for k in KINDS) + " |")
    if not counts:
        lines.append("| (no failure in any run) |" + " 0 |" * len(KINDS))
    total = Counter()
    for kinds in counts.values():
        total.update(kinds)
    lines += [
        "",
        "Failures over all runs: " + ", ".join(f"{total.get(k, 0)} {k}" for k in KINDS),
        "",
    ]
    return "\n".join(lines)


class LoadSampler:
    """The machine's 1-minute load average, sampled every ``every`` seconds in a thread: the
    figures a loaded run's timings and failures must be read with."""

    def __init__(self, every: float = 15.0) -> None:
        self.every = every
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load-sampler", daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def span(self) -> dict[str, float]:
        """min, mean and max of the samples, rounded to one decimal."""
        if not self.samples:
            return {}
        mean = sum(self.samples) / len(self.samples)
        figures = {"min": min(self.samples), "mean": mean, "max": max(self.samples)}
        return {name: round(value, 1) for name, value in figures.items()}


@contextmanager
def load(workers: int, seconds: float) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``workers`` busy processes (at most the cores) for at most ``seconds``; stopped at exit."""
    count = max(0, min(workers, os.cpu_count() or 1))
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _BURN, str(seconds)],
            stdin=subprocess.DEVNULL,
            process_group=0,
        )
        for _ in range(count)
    ]
    try:
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 5
        for process in processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def write(
    folder: Path, runs: Sequence[Mapping[str, Any]], counts: Mapping[str, Counter[str]]
) -> str:
    """soak.json and soak.md into ``folder``; returns the Markdown."""
    text = render(runs, counts)
    (folder / "soak.md").write_text(text, "utf-8")
    data = {"runs": list(runs), "failures": {name: dict(kinds) for name, kinds in counts.items()}}
    (folder / "soak.json").write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    return text

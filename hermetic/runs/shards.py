"""Deterministic, duration-balanced splits of a scenario list: CI shards and worker order.

``--shard K/N`` must give every CI machine a disjoint part of the suite and, together, all of
it, with no coordination between machines. So the split depends on nothing but its inputs --
the scenario list and the durations file, identical on every machine -- and a digest of those
inputs travels with each shard's reports (``share.json``): ``merge-reports`` refuses shards
planned differently.

The split is LPT (longest processing time first): scenarios sorted by estimated seconds, each
given to the least loaded shard. Ties are broken by a hash of the scenario key, so equal
estimates (no durations recorded) still spread every feature over all shards.

Standard library only (``tools/run.py`` uses it before any virtual environment exists).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hermetic.plan.selection import Listing
from hermetic.reporting.layout import SHARE_JSON

Item = TypeVar("Item")
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
PLAN_FORMAT = "hermetic-plan/1"


class PlanError(ValueError):
    """A folder without a readable share.json: not written by a parallel run or a shard."""


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count``, counted from 1 (as CI matrices count)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/3"`` -> Shard(2, 3); ValueError with a usable message otherwise."""
    match = _SHARD.match(text)
    if not match:
        raise ValueError(f"--shard {text!r}: expected K/N, e.g. 1/3")
    shard = Shard(int(match[1]), int(match[2]))
    if not 1 <= shard.index <= shard.count:
        raise ValueError(f"--shard {text}: K must be between 1 and N")
    return shard


def longest_first(keys: Sequence[str], seconds: Mapping[str, float]) -> list[int]:
    """Indexes of ``keys`` ordered longest first; equal estimates by key hash (stable)."""
    return sorted(range(len(keys)), key=lambda i: (-seconds[keys[i]], _tiebreak(keys[i])))


def partition(keys: Sequence[str], seconds: Mapping[str, float], count: int) -> list[list[int]]:
    """LPT split of ``keys`` into ``count`` parts (indexes, each part longest first)."""
    if count < 1:
        raise ValueError("cannot split into fewer than one part")
    parts: list[list[int]] = [[] for _ in range(count)]
    loads = [0.0] * count
    for index in longest_first(keys, seconds):
        target = min(range(count), key=lambda part: (loads[part], part))
        parts[target].append(index)
        loads[target] += seconds[keys[index]]
    return parts


def select(
    items: Sequence[Item], keys: Sequence[str], seconds: Mapping[str, float], shard: Shard
) -> list[Item]:
    """This shard's items, longest first."""
    return [items[i] for i in partition(keys, seconds, shard.count)[shard.index - 1]]


def plan_digest(keys: Sequence[str], seconds: Mapping[str, float], count: int) -> str:
    """What the split depended on; equal digests mean the shards split the same suite alike."""
    payload = json.dumps([count, [[key, round(seconds[key], 3)] for key in keys]])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class PlanRecord:
    """``share.json``: what a parallel run or a shard set out to run, beside its reports.

    ``merge-reports`` needs it: the whole listing (so that a missing shard's scenarios are
    reported, not forgotten), the locations this set stands for, the digest to compare, the
    measured seconds to carry into the merged durations.json, and the absolute folder the set
    was written in (its JUnit attachment lines name absolute paths there).
    """

    digest: str
    shard: Shard | None
    listing: Listing
    expected: list[str]
    seconds: dict[str, float]
    written_at: Path

    def write(self, folder: Path) -> None:
        data = {
            "format": PLAN_FORMAT,
            "digest": self.digest,
            "shard": str(self.shard) if self.shard else None,
            "written_at": str(self.written_at),
            "expected": self.expected,
            "seconds": self.seconds,
            "listing": self.listing.to_json(),
        }
        (folder / SHARE_JSON).write_text(json.dumps(data, indent=1) + "\n", "utf-8")

    @classmethod
    def read(cls, folder: Path) -> PlanRecord:
        try:
            data: dict[str, Any] = json.loads((folder / SHARE_JSON).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise PlanError(
                f"{folder}: not the reports of a parallel run or shard: {exc}"
            ) from None
        if data.get("format") != PLAN_FORMAT:
            raise PlanError(f"{folder / SHARE_JSON}: unknown format {data.get('format')!r}")
        return cls(
            digest=str(data["digest"]),
            shard=parse_shard(data["shard"]) if data.get("shard") else None,
            listing=Listing.from_json(data["listing"]),
            expected=list(data["expected"]),
            seconds={str(k): float(v) for k, v in dict(data.get("seconds", {})).items()},
            written_at=Path(data["written_at"]),
        )


def _tiebreak(key: str) -> str:
    return hashlib.sha1(key.encode("utf-8")).hexdigest()

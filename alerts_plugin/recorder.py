"""Store one alert, replaying spooled ones first; spool it when the database fails.

One call, one SQLite transaction:

1. ``BEGIN IMMEDIATE`` takes the database's write lock (waiting at most
   ``store.STORE_WAIT_SECONDS``) and checks the table's schema.
2. If a spool exists, its lock is taken and every pending alert is upserted,
   in capture order, with its original ``seen_at``.
3. The new alert is upserted; the transaction commits.
4. The spool file is deleted, then its lock released.

Why nothing is counted twice or lost:

* Replayers are serialised twice over: by SQLite's write lock, and by the
  spool lock, which a replayer keeps from the read until the file is deleted.
  A second replayer that gets the database right after our COMMIT therefore
  waits for the spool lock and then finds no file.
* Appenders take the spool lock too, so no alert can land in the file between
  the replayer's read and its delete.
* The lock order is always database, then spool; appenders hold no database
  lock (their transaction has been rolled back), so there is no deadlock.
* A crash before COMMIT rolls the whole transaction back and leaves the spool
  intact: the next replay counts each entry exactly once. The only window for
  a double count is a crash between COMMIT returning and ``unlink()``
  (a single syscall, microseconds). Closing it would need a commit marker in
  the same SQLite transaction, i.e. a table outside the shared contract.

If the spool lock cannot be had (a holder stuck for over
``spool.SPOOL_LOCK_SECONDS``), the new alert is still stored and the spool
waits for the next capture; storing beats losing it, at the price of that
alert being counted before the older spooled ones.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

from .sighting import Sighting, utc_now_iso
from .spool import SPOOL_FILENAME, Pending, Spool
from .store import AlertStore

DB_FILENAME = "telemetry.db"


@dataclass
class Outcome:
    """What happened to one alert, for the caller to log."""

    #: The alert is in the database.
    stored: bool = False
    #: Spooled alerts written to the database before it.
    replayed: int = 0
    #: (why, line) for spool lines that were not alerts, dropped with the spool.
    rejected: list[tuple[str, str]] = field(default_factory=list)
    #: Why the database write failed (empty when stored).
    failure: str = ""
    #: When the alert was captured: its seen_at if it was spooled (or lost).
    seen_at: str = ""
    #: Alerts waiting in the spool after this one was added to it.
    pending: int = 0
    #: The spool file this call used.
    spool_path: Path = Path(SPOOL_FILENAME)
    #: Why the alert could not be spooled either: it is lost (empty otherwise).
    spool_failure: str = ""
    #: Non-fatal trouble with the spool, worth an ERROR line each.
    problems: list[str] = field(default_factory=list)
    #: The database file's name, for log lines.
    db_filename: str = DB_FILENAME

    @property
    def lost(self) -> bool:
        return bool(self.spool_failure)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def record(folder: Path, sighting: Sighting) -> Outcome:
    """Put *sighting* in ``folder/telemetry.db``, or in the spool when that fails.

    Never raises for a storage problem: the :class:`Outcome` says what
    happened. *sighting* should have no ``seen_at``: a stored alert is stamped
    at commit (so ``last_seen_at`` follows commit order), a spooled one with
    the time of this call.
    """
    captured_at = utc_now_iso()
    store = AlertStore(folder / DB_FILENAME)
    # The second spool lives in the Hermes home itself, for when the telemetry folder cannot be
    # written at all (e.g. its permissions were tightened): the alert still waits for replay.
    spools = [Spool(folder), Spool(folder.parent)]
    outcome = Outcome(seen_at=captured_at, spool_path=spools[0].path)
    try:
        with store.transaction() as tx, ExitStack() as spool_lock:
            claimed: list[Pending] = []
            for spool in spools:
                if not spool.has_pending():
                    continue
                try:
                    claimed.append(spool_lock.enter_context(spool.claim()))
                except OSError as exc:
                    outcome.problems.append(
                        f"pending alerts in {spool.path} not replayed this time: {_describe(exc)}"
                    )
            replaying = sorted(
                (old for pending in claimed for old in pending.sightings),
                key=lambda old: old.seen_at or "",
            )
            for old in replaying:
                tx.upsert(old)
            tx.upsert(sighting)
            tx.commit()
            outcome.stored = True
            outcome.replayed = len(replaying)
            for pending in claimed:
                outcome.rejected.extend(pending.rejected)
                try:
                    pending.consume()
                except OSError as exc:
                    outcome.problems.append(
                        f"replayed {len(pending.sightings)} pending alert(s) but could not delete "
                        f"their spool ({_describe(exc)}): the next replay counts them again"
                    )
    except Exception as exc:
        if outcome.stored:
            # Committed; only the cleanup failed. Spooling now would count it twice.
            outcome.problems.append(f"after storing the alert: {_describe(exc)}")
            return outcome
        outcome.failure = store.describe(exc)
        failures = []
        for spool in spools:
            try:
                outcome.pending = spool.append(replace(sighting, seen_at=captured_at))
                outcome.spool_path = spool.path
                return outcome
            except Exception as spool_exc:
                described = _describe(spool_exc)
                failures.append(described if not failures else f"and in {spool.path}: {described}")
        outcome.spool_failure = "; ".join(failures)
    return outcome

"""``hermetic mutate``: the plugin's mutants through the features, a score and the survivors.

1. The features run once against the unmutated plugin, exactly as ``hermetic run`` runs them
   (the parallel runner, report.html and the rest in ``--reports``): a mutant can only be
   judged by a suite that passes without it.
   Its ``hermes`` processes record which lines of the plugin each scenario runs (``coverage``).
2. Every mutant of the plugin's source (``operators``; at most ``--max``, spread over the
   operators) whose verdict the cache does not hold runs in a copy of the plugin, one behave
   process each, ``--jobs`` at once, stopping at its first failing scenario (``trials``), with
   only the scenarios that ran its line; one that no scenario reached is ``not-reached``.
3. Survivors named in the equivalents file (``mutants.toml`` beside the plugin, or
   ``--equivalents``) are reported as equivalent, with the reason given there.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermetic.errors import ConfigError
from hermetic.hermes.run.hang_limit import hang_in
from hermetic.mutation import coverage, pip_builds, report, verdict_cache
from hermetic.mutation.operators import Mutant, mutants_of, spread
from hermetic.mutation.sources import copy_with, source_files
from hermetic.mutation.trials import Result, Trial, run_trials
from hermetic.reporting.layout import slug
from hermetic.runs.exit_status import INTERRUPTED, NOT_STARTED

if TYPE_CHECKING:
    from hermetic.plan.model import RunPlan
    from hermetic.runs import acceptance

EQUIVALENTS_FILE = "mutants.toml"
#: Besides the sources, what makes a plugin's build: its manifests.
BUILD_FILES = ("plugin.yaml", "pyproject.toml", "setup.cfg")
#: A trial's time limit when none is given: this many times the unmutated run's, at least
#: MIN_TIMEOUT seconds (a loaded machine stretches every run; a mutant that loops forever
#: still ends).
TIMEOUT_FACTOR = 4.0
MIN_TIMEOUT = 180.0
#: Verdicts kept for the next run; a timeout or an error depends on the machine, not the code.
CACHED_VERDICTS = ("killed", "survived", "incompetent")


@dataclass(frozen=True)
class MutateOptions:
    python: Path
    plugin: Path  # the plugin's source folder, as -D plugin= takes it
    suite_args: Sequence[str]  # behave's arguments without the plugin (features, tags, profile)
    features: Path  # the features folder, for the cache key
    profile: Path | None
    cwd: Path
    reports: Path
    jobs: int
    max_mutants: int | None = None
    only: Sequence[str] | None = None  # mutant ids
    timeout: float | None = None
    equivalents: Path | None = None
    env: Mapping[str, str] | None = None
    version: str = ""
    #: Run each mutant with only the scenarios that reached its line (``--no-coverage``: all).
    coverage: bool = True
    #: The unmutated run's plan (hermetic.plan): each trial runs it with its mutant copy as the
    #: plugin. None: a suite of its own, given the copy with ``-D plugin=`` (tests' stand-ins).
    plan: RunPlan | None = None


@dataclass
class Outcome:
    entries: list[report.Entry]
    interrupted: bool = False

    @property
    def score(self) -> float | None:
        return report.score(self.entries)


def load_equivalents(path: Path | None, plugin: Path) -> dict[str, str]:
    """``mutant id -> why`` from ``[equivalent]`` of the equivalents file (if there is one)."""
    chosen = path if path is not None else plugin / EQUIVALENTS_FILE
    if path is None and not chosen.is_file():
        return {}
    try:
        data = tomllib.loads(chosen.read_text("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{chosen}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TomlDecodeError as exc:
        raise ConfigError(f"{chosen}: not TOML: {exc}") from None
    table = data.get("equivalent", {})
    if not isinstance(table, dict) or not all(
        isinstance(why, str) and why.strip() for why in table.values()
    ):
        raise ConfigError(f'{chosen}: equivalent: a table of mutant id = "why it is equivalent"')
    return {str(key): why.strip() for key, why in table.items()}


def all_mutants(plugin: Path) -> tuple[list[Mutant], dict[str, str]]:
    """Every mutant of the plugin's source files, and each file's text."""
    texts = {file: (plugin / file).read_text("utf-8") for file in source_files(plugin)}
    found: list[Mutant] = []
    for file, text in texts.items():
        try:
            found.extend(mutants_of(file, text))
        except SyntaxError as exc:
            raise ConfigError(f"{plugin / file}:{exc.lineno}: not Python: {exc.msg}") from None
    return found, texts


def mutate(
    options: MutateOptions,
    say: Callable[[str], None],
    reached: coverage.CoverageMap | None = None,
) -> Outcome:
    """Run the mutants (the unmutated suite must already have passed); record every verdict.
    With ``reached`` (the unmutated run's coverage), each mutant runs only the scenarios that
    ran its statement, and one that none ran is ``not-reached`` without running."""
    found, texts = all_mutants(options.plugin)
    known = {mutant.id for mutant in found}
    if options.only:
        for unknown in [name for name in options.only if name not in known]:
            say(f"--only {unknown}: no such mutant (the code moved?)")
        found = [mutant for mutant in found if mutant.id in options.only]
    chosen = spread(found, options.max_mutants)
    equivalents = load_equivalents(options.equivalents, options.plugin)
    for stale in sorted(set(equivalents) - known):
        say(f"{EQUIVALENTS_FILE}: {stale}: no such mutant any more (the code moved?)")
    suite = verdict_cache.suite_digest(
        options.features, options.profile, options.suite_args, options.version
    )
    cache = verdict_cache.VerdictCache(options.reports / verdict_cache.CACHE_FILE)
    reach = coverage.Reach(reached, texts) if reached is not None else None
    entries: dict[str, report.Entry] = {}
    to_run: list[tuple[Mutant, str]] = []
    selected: dict[str, list[str] | None] = {}  # mutant id -> the scenarios it runs (None: all)
    for mutant in chosen:
        locations = reach.scenarios(mutant) if reach is not None else None
        if locations == []:
            entries[mutant.id] = _entry(mutant, texts, NOT_REACHED, cached=False, scenarios=[])
            continue
        selected[mutant.id] = locations
        entry_key = verdict_cache.key(
            mutant.digest(texts[mutant.file]),
            f"{suite}\0{coverage.selection_digest(locations)}",
        )
        cached = cache.get(entry_key)
        if cached is not None and not _a_hang_kept_as_a_kill(cached):
            entries[mutant.id] = _entry(mutant, texts, cached, cached=True, scenarios=locations)
        else:
            to_run.append((mutant, entry_key))
    unreached = len(chosen) - len(selected)
    say(
        f"{len(found)} mutants in {len(texts)} files; {len(chosen)} chosen, "
        f"{unreached} not reached by any selected scenario, "
        f"{len(selected) - len(to_run)} from the cache, {len(to_run)} to run on {options.jobs} "
        "workers"
    )
    # Which scenario killed how many mutants so far, in this run and the ones before it with
    # this suite and plugin: the next trials try those first.
    kills = cache.kill_counts(verdict_cache.kills_key(suite, options.plugin.resolve().name))
    # A trial names an outline's row without its " -- @1.1 Examples" (trials.result_cases).
    by_name = {
        name.split(" -- @")[0]: location
        for location, name in (reached.names if reached else {}).items()
    }
    timeout = options.timeout or MIN_TIMEOUT
    finished = 0
    pip = pip_builds.is_pip_project(options.plugin)
    builds: dict[str, str] = {}  # a pip project's mutant -> the key of its build's environment
    with tempfile.TemporaryDirectory(prefix="hermetic-mutants-") as scratch:
        trials, keys = [], {}
        copies: dict[str, Path] = {}
        for mutant, entry_key in to_run:
            name = _copy_name(mutant)
            copy = copy_with(
                options.plugin,
                Path(scratch) / "copies" / name,
                mutant.file,
                mutant.apply(texts[mutant.file]),
            )
            if options.plan is None:
                args = [*options.suite_args, f"--define=plugin={copy}"]
                args.append("--define=keep_sandbox=never")
            else:
                args = list(options.suite_args)
            trial = Trial(mutant.id, args, options.cwd, _without_coverage(options.env))
            trials.append(trial)
            copies[mutant.id] = copy
            keys[mutant.id] = (mutant, entry_key)
            if pip:
                builds[mutant.id] = pip_builds.build_key(copy)

        def arrange(trial: Trial) -> Trial:
            """The trial with its mutant's plugin in its plan (a pip mutant's build installed
            now, outside any namespace), and only its mutant's scenarios, ordered as the kills
            so far say."""
            if options.plan is not None:
                trial = replace(trial, plan=trial_plan(options.plan, copies[trial.name]))
            locations = selected[trial.name]
            if locations is None or reach is None:
                return trial
            suite = options.plan.suite if options.plan is not None else None
            paths = set(suite.paths) if suite is not None else {str(options.features)}
            rest = [arg for arg in trial.behave_args if arg not in paths]
            return replace(trial, behave_args=[*rest, *reach.ordered(locations, kills)])

        def done(trial: Trial, result: Result) -> None:
            nonlocal finished
            mutant, entry_key = keys[trial.name]
            if trial.name in builds:
                pip_builds.remove_build(builds.pop(trial.name))
            data = _result_data(result)
            if result.verdict in ("error", "timeout"):
                kept = options.reports / "mutants" / slug(mutant.id)
                data["message"] = _keep_output(result, kept)
            if result.verdict == "killed" and data["killed_by"] in by_name:
                killer_location = by_name[str(data["killed_by"])]
                kills[killer_location] = kills.get(killer_location, 0) + 1
            if result.verdict in CACHED_VERDICTS:
                cache.put(entry_key, data)  # saved with the kills counted above
                cache.save()
            entries[mutant.id] = _entry(
                mutant, texts, data, cached=False, scenarios=selected[mutant.id]
            )
            finished += 1
            killer = f"  by: {data['killed_by']}" if data["killed_by"] else ""
            killer += f"  hung: {data['hang']}" if data["hang"] else ""
            say(
                f"{finished}/{len(trials)} {result.verdict:<11} {result.seconds:6.1f}s  "
                f"{mutant.where} {mutant.operator}{killer}"
            )

        try:
            completed = run_trials(
                options.python,
                trials,
                Path(scratch) / "trials",
                options.jobs,
                timeout,
                done,
                arrange,
            )
        finally:
            for key in builds.values():  # trials an interruption left unfinished
                pip_builds.remove_build(key)
    for entry in entries.values():
        if entry.verdict in report.MISSED and entry.id in equivalents:
            entry.verdict, entry.why = "equivalent", equivalents[entry.id]
    ordered = [entries[m.id] for m in chosen if m.id in entries]
    return Outcome(ordered, interrupted=not completed)


def _unmutated_run(
    options: MutateOptions, traced: bool
) -> tuple[acceptance.Outcome, coverage.CoverageMap | None]:
    """The features against the unmutated plugin, as ``hermetic run`` runs them; ``traced``:
    with the line tracer on, and the coverage map it recorded."""
    from hermetic.runs.acceptance import run_acceptance

    with tempfile.TemporaryDirectory(prefix="hermetic-coverage-") as lines:
        env = dict(os.environ if options.env is None else options.env)
        if traced:
            env[coverage.ROOT_VARIABLE] = lines
        unmutated = run_acceptance(options.python, options.plan, env)  # type: ignore[arg-type]
        if not traced:
            return unmutated, None
        return unmutated, coverage.read_map(Path(lines), source_files(options.plugin))


def trial_plan(plan: RunPlan, copy: Path) -> RunPlan:
    """The run's plan with a mutant copy as its plugin and no sandbox kept. A copy of a
    directory plugin differs from it in one .py file: its name, profile and Hermes are the
    plugin's. A copy of a pip project is a new build: installed here, into an environment made
    from Hermes' own, as the unmutated plugin was."""
    from hermetic.plugin_sources import load_plugin
    from hermetic.plugin_sources.directory import DirectoryPlugin

    settings = plan.settings
    if isinstance(settings.plugin, DirectoryPlugin):
        plugin, hermes = replace(settings.plugin, source=copy), settings.hermes
    else:
        build = settings.hermes_build
        assert build is not None, "a resolved plan names its Hermes build"
        plugin, hermes = load_plugin(str(copy)).prepare(build.command, build.version, _quiet)
    settings = replace(settings, plugin=plugin, hermes=hermes, keep_sandbox="never")
    return replace(plan, settings=settings)


def _quiet(line: str) -> None:
    """A mutant's build says nothing: the run's lines are one per mutant."""


def _build_files(plugin: Path) -> list[str]:
    """What the unmutated run's verdict depends on in the plugin's folder."""
    manifests = [name for name in BUILD_FILES if (plugin / name).is_file()]
    return [*source_files(plugin), *manifests]


def _keep_output(result: Result, folder: Path) -> str:
    """The trial's console and output, kept in ``folder`` (its scratch folder goes); the last
    line of its output, and where the rest is."""
    folder.mkdir(parents=True, exist_ok=True)
    last = ""
    for name in ("console.txt", "output.txt"):
        source = result.folder / name if result.folder else None
        if source is not None and source.is_file():
            text = source.read_text("utf-8", errors="replace")
            (folder / name).write_text(text, "utf-8")
            last = next((line for line in reversed(text.splitlines()) if line.strip()), last)
    return f"exit {result.returncode}: {last.strip()[:200]} (output in {folder})"


def _copy_name(mutant: Mutant) -> str:
    return hashlib.sha256(mutant.id.encode()).hexdigest()[:12]


def _a_hang_kept_as_a_kill(cached: Mapping[str, object]) -> bool:
    """A verdict an older hermetic kept as killed when the hang limit alone had stopped its
    scenario: no verdict, so it runs again."""
    return cached.get("verdict") == "killed" and hang_in(str(cached.get("message", ""))) is not None


def _result_data(result: Result) -> dict[str, object]:
    # A scenario the hang limit stopped did not kill the mutant: it is named as the hang.
    timeout = result.verdict == "timeout"
    first = result.failed[0] if result.failed and not timeout else None
    return {
        "verdict": result.verdict,
        "seconds": round(result.seconds, 1),
        "killed_by": first.name if first else "",
        "message": (first.message or "") if first else "",
        "passed": result.passed,
        "hang": "; ".join(result.hangs) if timeout else "",
    }


def _without_coverage(env: Mapping[str, str] | None) -> dict[str, str]:
    """A trial's environment: the coverage is the unmutated run's alone."""
    base = os.environ if env is None else env
    return {name: value for name, value in base.items() if name != coverage.ROOT_VARIABLE}


#: The data of a mutant no selected scenario reached: not run, missed.
NOT_REACHED: Mapping[str, object] = {"verdict": report.NOT_REACHED, "seconds": 0.0}


def _entry(
    mutant: Mutant,
    texts: Mapping[str, str],
    data: Mapping[str, object],
    cached: bool,
    scenarios: list[str] | None = None,
) -> report.Entry:
    return report.Entry(
        id=mutant.id,
        verdict=str(data["verdict"]),
        operator=mutant.operator,
        file=mutant.file,
        line=mutant.line,
        diff=mutant.diff(texts[mutant.file]),
        seconds=float(data.get("seconds", 0.0)),  # type: ignore[arg-type]
        cached=cached,
        killed_by=str(data.get("killed_by", "")),
        message=str(data.get("message", "")),
        passed=list(data.get("passed", [])),  # type: ignore[call-overload]
        scenarios=scenarios,
        hang=str(data.get("hang", "")),
    )


def unmutated_timeout(seconds: float, scenarios: int, jobs: int) -> float:
    """A trial's limit from the unmutated run: its scenarios one after another (that run spread
    them over ``jobs`` workers), times :data:`TIMEOUT_FACTOR`, at least :data:`MIN_TIMEOUT`."""
    serial = seconds * max(1, min(jobs, scenarios))
    return max(MIN_TIMEOUT, TIMEOUT_FACTOR * serial)


def check_inputs(plugin: Path, equivalents: Path | None) -> None:
    """What mutants are made from, checked before anything runs: a ConfigError (one line) for
    a plugin that is no source folder, a file that is not Python, a broken equivalents file."""
    if not plugin.is_dir():
        # A wheel, an sdist or a requirement: what Hermes would import is built from a project.
        raise ConfigError(
            f"--plugin {plugin}: not a folder; a mutant is a changed copy of the plugin's "
            "source tree: pass the project folder it is built from"
        )
    all_mutants(plugin)  # a file that is not Python
    load_equivalents(equivalents, plugin)


def run_mutate(options: MutateOptions, min_score: float | None, say: Callable[[str], None]) -> int:
    """The whole command: the unmutated run, the mutants, the reports, the exit status (0, 1
    below ``min_score``, 2 when the unmutated plugin already fails or a file is wrong, 130
    when interrupted)."""
    try:
        check_inputs(options.plugin, options.equivalents)
    except ConfigError as exc:
        sys.stderr.write(f"hermetic: {exc}\n")
        return NOT_STARTED
    cache = verdict_cache.VerdictCache(options.reports / verdict_cache.CACHE_FILE)
    unmutated_key = "unmutated:" + verdict_cache.key(
        verdict_cache.files_digest(options.plugin, _build_files(options.plugin)),
        verdict_cache.suite_digest(
            options.features, options.profile, options.suite_args, options.version
        ),
    )
    known = cache.get(unmutated_key)
    if (
        known is not None
        and (options.reports / "report.html").is_file()
        and (not options.coverage or "coverage" in known)
    ):
        seconds, passed = float(known["seconds"]), int(known["passed"])
        say(f"unmutated plugin: {passed} passed in the last run of this build ({seconds:.1f} s)")
        reached = coverage.CoverageMap.from_json(known["coverage"]) if options.coverage else None
    else:
        started = time.monotonic()
        unmutated, reached = _unmutated_run(options, traced=options.coverage)
        if options.coverage and not unmutated.ok and "interrupted" not in unmutated.problems:
            # The tracer makes Hermes slower (docs/dev/mutation-notebook.md): on a loaded
            # machine a command can pass the suite's time limit. Without it, the selection is
            # every scenario.
            say(
                f"the features fail on the unmutated plugin with the line tracer on "
                f"({unmutated.closing_line()}); once more without it, and then every mutant "
                "runs every selected scenario"
            )
            unmutated, reached = _unmutated_run(options, traced=False)
        if "interrupted" in unmutated.problems:
            return INTERRUPTED
        if not unmutated.ok:
            say(
                f"the features fail on the unmutated plugin ({unmutated.closing_line()}; "
                f"{', '.join(unmutated.problems)}): fix that first, see "
                f"{options.reports / 'report.html'}"
            )
            return NOT_STARTED
        seconds, passed = time.monotonic() - started, unmutated.passed
        say(f"unmutated plugin: {unmutated.closing_line()} in {seconds:.1f} s")
        known = {"seconds": round(seconds, 1), "passed": passed}
        if reached is not None:
            known["coverage"] = reached.to_json()
        cache.put(unmutated_key, known)
        cache.save()
    if reached is not None and reached.empty:
        say(
            "no scenario ran a line of the plugin's files (the line tracer recorded nothing): "
            "every mutant runs every selected scenario"
        )
        reached = None
    timeout = options.timeout or unmutated_timeout(seconds, passed, options.jobs)
    say(f"each mutant may take {timeout:.0f} s")
    outcome = mutate(replace(options, timeout=timeout), say, reached)
    # The suite's folder by what it is, not by the scratch folder it was copied into.
    selection = [arg.replace(str(options.features), "features") for arg in options.suite_args]
    report.write(options.reports, options.plugin, outcome.entries, selection, outcome.interrupted)
    for entry in outcome.entries:
        if entry.verdict in ("survived", "timeout", "error", report.NOT_REACHED):
            hang = f": {entry.hang}" if entry.hang else ""
            say(
                f"{entry.verdict}: {entry.file}:{entry.line} {entry.description} ({entry.id}){hang}"
            )
    say(f"reports: {options.reports / report.MUTATE_HTML}, {options.reports / report.MUTATE_JSON}")
    print(report.closing_line(outcome.entries, outcome.interrupted), flush=True)
    if outcome.interrupted:
        return INTERRUPTED
    value = outcome.score
    if min_score is not None and (value is None or value < min_score):
        sys.stderr.write(f"hermetic: mutation score {value} % is below --min-score {min_score}\n")
        return 1
    return 0

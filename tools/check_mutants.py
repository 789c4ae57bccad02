#!/usr/bin/env python3
"""Prove the features catch a broken plugin or a broken sandbox: run them against broken copies.

A plugin mutant is a copy of alerts_plugin/ with one behaviour broken (the write skipped, the
log line skipped, …), run with ``-D plugin=``. A harness mutant is a copy of the whole repository
whose sandbox breaks one isolation guarantee (the developer's home or keys passed through, the
network guard only recording, a stale plugin copy installed). The suite must FAIL for every
mutant; a mutant that survives names a guarantee no scenario guards. Prints one row per mutant
with the scenarios that caught it.

    .venv/bin/python tools/check_mutants.py [--tags=@smoke] [--only NAME]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "alerts_plugin"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # relative to the plugin folder
    old: str  # text that must occur exactly once
    new: str
    # Which scenarios should catch it (behave arguments); the smoke feature by default.
    where: tuple[str, ...] = ("--tags=@smoke",)
    # "plugin": ``file`` is in alerts_plugin/; "harness": ``file`` is relative to the repo.
    target: str = "plugin"


FAILURES = ("features/provider_failures.feature",)
ISOLATION = ("features/isolation.feature",)
HOSTILE = ("features/hostile_input.feature",)
FAULTS = ("features/store_faults.feature",)
GATEWAY = ("features/gateway.feature",)
RELIABILITY = ("features/reliability.feature",)


MUTANTS = (
    Mutant(
        "skips-the-database-write",
        "recorder.py",
        "            tx.upsert(sighting)\n",
        "            pass\n",
    ),
    Mutant("skips-the-log-line", "__init__.py", "log.info(_capture_line(alert))", "pass"),
    Mutant(
        "stores-an-empty-message",
        "__init__.py",
        "            error_message=alert.message,",
        '            error_message="",',
    ),
    Mutant(
        "alerts-on-a-healthy-model",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)\n"
        '    ctx.register_hook("post_api_request", lambda **kw: on_api_request_error(\n'
        '        **{**kw, "status_code": 404, "retryable": False, "reason": "model_not_found"}))',
    ),
    Mutant(
        "ignores-repeats",
        "store.py",
        "index_elements=[alerts_table.c.model, alerts_table.c.provider],\n",
        "index_elements=[alerts_table.c.model, alerts_table.c.provider],"
        ' where=__import__("sqlalchemy").false(),\n',
    ),
    Mutant(
        "does-not-count-repeats",
        "store.py",
        "alerts_table.c.occurrences: alerts_table.c.occurrences + 1,",
        "alerts_table.c.occurrences: 1,",
    ),
    Mutant(
        "overwrites-first-seen",
        "store.py",
        "alerts_table.c.last_seen_at: stmt.excluded.last_seen_at,",
        "alerts_table.c.last_seen_at: stmt.excluded.last_seen_at,\n"
        "                alerts_table.c.first_seen_at: stmt.excluded.first_seen_at,",
    ),
    Mutant(
        "registers-nothing",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        "    return None",
    ),
    Mutant(
        "alerts-on-rate-limits",
        "classify.py",
        "if status == 410:",
        "if status in (410, 429):",
        FAILURES,
    ),
    Mutant("ignores-410", "classify.py", "if status == 410:", "if status == -410:", FAILURES),
    Mutant(
        "alerts-before-hermes-gives-up",
        "classify.py",
        'if is_last_attempt(kwargs.get("retry_count"), kwargs.get("max_retries")):',
        "if True:",
        FAILURES,
    ),
    Mutant(
        "never-alerts-on-5xx",
        "classify.py",
        "if (status == 404 or 500 <= status < 600) and retryable is True:",
        "if status == 404 and retryable is True:",
        FAILURES,
    ),
    Mutant(
        "alerts-on-auth-and-bad-requests",
        "classify.py",
        "if status == 404 and retryable is False:",
        "if status in (400, 401, 403, 404) and retryable is False:",
        FAILURES,
    ),
    Mutant(
        "reports-the-default-provider",
        "classify.py",
        'provider=_as_text(kwargs.get("provider")),',
        'provider="custom",',
        FAILURES,
    ),
    Mutant(
        "stores-echoed-secrets",
        "redact.py",
        "def redact(text: str) -> str:\n",
        "def redact(text: str) -> str:\n    return text\n",
        HOSTILE,
    ),
    Mutant(
        "drops-alerts-it-cannot-store",
        "recorder.py",
        "outcome.pending = spool.append(replace(sighting, seen_at=captured_at))",
        'raise OSError("spool disabled")',
        FAULTS,
    ),
    Mutant(
        "does-not-wait-for-a-locked-database",
        "store.py",
        "STORE_WAIT_SECONDS = 5.0",
        "STORE_WAIT_SECONDS = 0.0",
        FAULTS,
    ),
    Mutant(
        "mangles-odd-model-names",
        "classify.py",
        'model=_as_text(kwargs.get("model")),',
        'model=_as_text(kwargs.get("model")).replace("\'", ""),',
        HOSTILE,
    ),
    Mutant(
        "registers-nothing-under-the-gateway",
        "__init__.py",
        "    ctx.register_hook(HOOK_NAME, on_api_request_error)",
        "    return None",
        GATEWAY,
    ),
    Mutant(
        "loses-concurrent-repeats",
        "store.py",
        "alerts_table.c.occurrences: alerts_table.c.occurrences + 1,",
        "alerts_table.c.occurrences: 1,",
        RELIABILITY,
    ),
    Mutant(
        "gateway-leaves-a-process-behind",
        "hermetic/scenario_run.py",
        "        result = gateway.wait(timeout)\n",
        "        result = gateway.wait(timeout)\n"
        "        __import__('subprocess').Popen(['sleep', '20'], env=self.sandbox.env(),"
        " start_new_session=True)\n",
        GATEWAY,
        "harness",
    ),
    Mutant(
        "sandbox-passes-the-developers-home",
        "hermetic/sandbox.py",
        '"HOME": str(self.home),\n            "HERMES_HOME": str(self.hermes_home),',
        '"HOME": __import__("os").environ["HOME"],',
        ISOLATION,
        "harness",
    ),
    Mutant(
        "sandbox-passes-the-developers-keys",
        "hermetic/sandbox.py",
        '        return {\n            "PATH":',
        "        return {\n            **{k: v for k, v in __import__('os').environ.items()"
        ' if k.endswith(("_KEY", "_TOKEN"))},\n            "PATH":',
        ISOLATION,
        "harness",
    ),
    Mutant(
        "network-guard-only-records",
        "hermetic/sandbox.py",
        'network_mode: str = "block"',
        'network_mode: str = "record"',
        ISOLATION,
        "harness",
    ),
    Mutant(
        "sandbox-lets-hermes-look-up-models-online",
        "hermetic/sandbox.py",
        "context_length: int | None = 131072",
        "context_length: int | None = None",
        ("--tags=@smoke",),
        "harness",
    ),
    Mutant(
        "sandbox-leaves-a-stale-plugin-copy",
        "hermetic/sandbox.py",
        "        self.plugin_source = plugin.source\n        return target",
        "        self.plugin_source = plugin.source\n"
        '        self.add_stale_copy(plugin.name + ".bak.2024")\n        return target',
        ("--tags=@smoke",),
        "harness",
    ),
)


def build(mutant: Mutant, parent: Path) -> Path:
    """The mutated copy: a plugin folder, or for a harness mutant a whole repository."""
    target = parent / mutant.name
    if mutant.target == "harness":
        ignore = shutil.ignore_patterns(".venv", ".git", "reports", "__pycache__", "*.egg-info")
        shutil.copytree(REPO, target, ignore=ignore)
    else:
        shutil.copytree(PLUGIN, target, ignore=shutil.ignore_patterns("__pycache__"))
    path = target / mutant.file
    text = path.read_text()
    if text.count(mutant.old) != 1:
        raise SystemExit(f"check_mutants: {mutant.name}: {mutant.old!r} not found once in {path}")
    text = text.replace(mutant.old, mutant.new)
    path.write_text(text)
    return target


def failed_scenarios(junit_dir: Path) -> list[str]:
    names = []
    for report in junit_dir.glob("*.xml"):
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                names.append(case.get("name", "?").split(" -- @")[0])
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only these mutants (comma-separated names)")
    args = parser.parse_args()
    behave = Path(sys.executable).parent / "behave"
    # Fail fast if the code moved under a mutant, before minutes of behave runs.
    for mutant in MUTANTS:
        source = (REPO if mutant.target == "harness" else PLUGIN) / mutant.file
        if source.read_text().count(mutant.old) != 1:
            raise SystemExit(f"check_mutants: {mutant.name}: anchor not found once in {source}")
    survivors = []
    with tempfile.TemporaryDirectory(prefix="hermetic-mutants-") as scratch:
        for mutant in MUTANTS:
            if args.only and mutant.name not in args.only.split(","):
                continue
            copy = build(mutant, Path(scratch))
            junit = Path(scratch) / f"junit-{mutant.name}"
            started = time.monotonic()
            command = [
                str(behave),
                *mutant.where,
                "--format=null",
                "--junit",
                f"--junit-directory={junit}",
                "-D",
                "keep_sandbox=never",
            ]
            env = dict(os.environ)
            if mutant.target == "harness":
                # The copy's own hermetic/ must win over the installed one.
                env["PYTHONPATH"] = str(copy)
                cwd = copy
            else:
                command += ["-D", f"plugin={copy}"]
                cwd = REPO
            result = subprocess.run(
                command,
                cwd=cwd,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            caught = failed_scenarios(junit)
            verdict = "caught" if result.returncode != 0 and caught else "SURVIVED"
            if verdict == "SURVIVED":
                survivors.append(mutant.name)
            print(
                f"{mutant.name:42} {verdict:9} {time.monotonic() - started:5.1f}s  "
                + ("; ".join(caught) or "-"),
                flush=True,
            )
    print(
        f"{len(survivors)} mutant(s) survived" + (f": {', '.join(survivors)}" if survivors else "")
    )
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())

